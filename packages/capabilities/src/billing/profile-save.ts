import { defineCapabilityHandler } from '../define.js';
import { slugOf } from '../slug.js';
import { runStatement } from '../sql.js';
import { billingContract, conflict, currencyCode, invalid, iso, notFound } from './common.js';
import { DEFAULT_NUMBER_PATTERNS } from './numbering.js';
import {
  clearDefaultProfile,
  countProfiles,
  type ProfileRow,
  selectBankAccount,
  selectProfile,
  selectProfileByKey,
  upsertProfile,
} from './sql-settings.js';

export const PROFILE_TEXTS = [
  'issuer_name',
  'issuer_legal_name',
  'issuer_address_line1',
  'issuer_address_line2',
  'issuer_postal_code',
  'issuer_city',
  'issuer_state',
  'issuer_country',
  'issuer_vat_id',
  'issuer_email',
  'issuer_phone',
  'issuer_website',
  'sender_line',
  'footer_text',
  'quote_terms',
  'sales_order_terms',
  'invoice_terms',
  'credit_note_terms',
  'self_billing_invoice_terms',
  'payment_terms',
] as const;

type ProfileText = (typeof PROFILE_TEXTS)[number];

export type ProfileSaveInput = {
  display_name: string;
  id?: string;
  profile_key?: string;
  is_default?: boolean;
  is_active?: boolean;
  default_bank_account_id?: string | null;
  legal_footer_lines?: string[];
  locale?: string;
  currency?: string;
  layout_config?: Record<string, unknown>;
  data?: Record<string, unknown>;
  number_patterns?: Record<string, string>;
} & { [K in ProfileText]?: string | null };

/** The contracts' profile output of a row (texts flattened back to fields). */
export function profileOutput(row: ProfileRow) {
  const texts = Object.fromEntries(PROFILE_TEXTS.map((name) => [name, row.texts[name] ?? null]));
  return {
    id: row.id,
    organization_id: row.organization_id,
    profile_key: row.profile_key,
    display_name: row.display_name,
    is_default: row.is_default,
    is_active: row.is_active,
    default_bank_account_id: row.default_bank_account_id,
    locale: row.locale,
    currency: row.currency,
    legal_footer_lines: row.legal_footer_lines,
    layout_config: row.layout_config,
    data: row.data,
    number_patterns: { ...DEFAULT_NUMBER_PATTERNS, ...row.number_patterns },
    ...texts,
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
  };
}

/**
 * `billing.profile.save`: creates (no id) or updates (id; fields left out keep their value) a document
 * profile. The organization's first profile is its default; making one default clears the others.
 */
export const billingProfileSaveHandler = defineCapabilityHandler<ProfileSaveInput, unknown>({
  contract: billingContract('billing.profile.save'),
  async handle(input, ctx) {
    const org = ctx.organizationId;
    let existing: ProfileRow | undefined;
    if (input.id !== undefined) {
      existing = (await runStatement<ProfileRow>(ctx.sql, selectProfile, [org, input.id])).rows[0];
      if (existing === undefined) notFound('profile', input.id);
    }
    const id = existing?.id ?? ctx.ids.uuid();
    const first =
      existing === undefined &&
      (await runStatement<{ n: number }>(ctx.sql, countProfiles, [org])).rows[0]?.n === 0;
    const key =
      input.profile_key ??
      existing?.profile_key ??
      (first ? 'default' : slugOf(input.display_name, 120, 'profile'));
    if ((await runStatement(ctx.sql, selectProfileByKey, [org, key, id])).rows.length > 0) {
      conflict(`Another profile already has the profile_key "${key}".`);
    }
    for (const [type, pattern] of Object.entries(input.number_patterns ?? {})) {
      if ((pattern.match(/\{SEQ/g) ?? []).length !== 1) {
        invalid(`/params/number_patterns/${type}`, 'must contain exactly one {SEQ} or {SEQ:n}');
      }
    }
    const bankAccountId =
      input.default_bank_account_id === undefined
        ? (existing?.default_bank_account_id ?? null)
        : input.default_bank_account_id;
    if (
      bankAccountId !== null &&
      (await runStatement(ctx.sql, selectBankAccount, [org, bankAccountId])).rows.length === 0
    ) {
      invalid('/params/default_bank_account_id', `names no bank account of this organization`);
    }
    const texts: Record<string, string | null> = { ...(existing?.texts ?? {}) };
    for (const name of PROFILE_TEXTS) if (input[name] !== undefined) texts[name] = input[name] ?? null;
    if (texts.issuer_country) texts.issuer_country = texts.issuer_country.toUpperCase();
    const isDefault = input.is_default ?? existing?.is_default ?? first;
    const { rows } = await runStatement<ProfileRow>(ctx.sql, upsertProfile, [
      id,
      org,
      key,
      input.display_name,
      isDefault,
      input.is_active ?? existing?.is_active ?? true,
      bankAccountId,
      input.locale ?? existing?.locale ?? 'de-DE',
      input.currency === undefined
        ? (existing?.currency ?? 'EUR')
        : currencyCode(input.currency, '/params/currency'),
      JSON.stringify(input.legal_footer_lines ?? existing?.legal_footer_lines ?? []),
      JSON.stringify(input.layout_config ?? existing?.layout_config ?? {}),
      JSON.stringify(input.data ?? existing?.data ?? {}),
      JSON.stringify(texts),
      JSON.stringify({ ...(existing?.number_patterns ?? {}), ...(input.number_patterns ?? {}) }),
      ctx.now,
    ]);
    if (isDefault) await runStatement(ctx.sql, clearDefaultProfile, [org, id]);
    return { profile: profileOutput(rows[0] as ProfileRow) };
  },
});
