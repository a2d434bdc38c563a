import type { SqlStatement } from '../sql.js';

const PROFILE_COLUMNS = `id, organization_id, profile_key, display_name, is_default, is_active, default_bank_account_id,
  locale, currency, legal_footer_lines, layout_config, data, texts, number_patterns, created_at, updated_at`;

export interface ProfileRow {
  readonly id: string;
  readonly organization_id: string;
  readonly profile_key: string;
  readonly display_name: string;
  readonly is_default: boolean;
  readonly is_active: boolean;
  readonly default_bank_account_id: string | null;
  readonly locale: string;
  readonly currency: string;
  readonly legal_footer_lines: string[];
  readonly layout_config: Record<string, unknown>;
  readonly data: Record<string, unknown>;
  readonly texts: Record<string, string | null>;
  readonly number_patterns: Record<string, string>;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** $1 organization, $2 id. */
export const selectProfile: SqlStatement = {
  name: 'billing.profile.select',
  text: `select ${PROFILE_COLUMNS} from billing_profiles where organization_id = $1 and id = $2`,
};

/** The organization's default active profile. $1 organization. */
export const selectDefaultProfile: SqlStatement = {
  name: 'billing.profile.select_default',
  text: `select ${PROFILE_COLUMNS} from billing_profiles
where organization_id = $1 and is_default and is_active order by created_at limit 1`,
};

/** $1 organization. */
export const countProfiles: SqlStatement = {
  name: 'billing.profile.count',
  text: 'select count(*)::int as n from billing_profiles where organization_id = $1',
};

/** $1 organization, $2 the profile that stays default. */
export const clearDefaultProfile: SqlStatement = {
  name: 'billing.profile.clear_default',
  text: 'update billing_profiles set is_default = false where organization_id = $1 and id <> $2 and is_default',
};

/**
 * Insert or update one profile. $1 id, $2 organization, $3 key, $4 display name, $5 default, $6 active,
 * $7 bank account, $8 locale, $9 currency, $10 footer lines, $11 layout, $12 data, $13 texts,
 * $14 number patterns, $15 now.
 */
export const upsertProfile: SqlStatement = {
  name: 'billing.profile.upsert',
  text: `insert into billing_profiles (id, organization_id, profile_key, display_name, is_default, is_active,
  default_bank_account_id, locale, currency, legal_footer_lines, layout_config, data, texts, number_patterns,
  created_at, updated_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12::jsonb, $13::jsonb, $14::jsonb, $15, $15)
on conflict (id) do update set profile_key = excluded.profile_key, display_name = excluded.display_name,
  is_default = excluded.is_default, is_active = excluded.is_active,
  default_bank_account_id = excluded.default_bank_account_id, locale = excluded.locale,
  currency = excluded.currency, legal_footer_lines = excluded.legal_footer_lines,
  layout_config = excluded.layout_config, data = excluded.data, texts = excluded.texts,
  number_patterns = excluded.number_patterns, updated_at = excluded.updated_at
returning ${PROFILE_COLUMNS}`,
};

/** $1 organization, $2 key, $3 own id. */
export const selectProfileByKey: SqlStatement = {
  name: 'billing.profile.select_by_key',
  text: 'select id from billing_profiles where organization_id = $1 and profile_key = $2 and id <> $3',
};

const BANK_COLUMNS = `id, organization_id, display_name, account_holder, iban, bic, bank_name,
  payment_reference_template, creditor_identifier, notes, currency, is_default, is_active, data, created_at,
  updated_at`;

export interface BankAccountRow {
  readonly id: string;
  readonly organization_id: string;
  readonly display_name: string;
  readonly account_holder: string;
  readonly iban: string;
  readonly bic: string | null;
  readonly bank_name: string | null;
  readonly payment_reference_template: string | null;
  readonly creditor_identifier: string | null;
  readonly notes: string | null;
  readonly currency: string;
  readonly is_default: boolean;
  readonly is_active: boolean;
  readonly data: Record<string, unknown>;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** $1 organization, $2 id. */
export const selectBankAccount: SqlStatement = {
  name: 'billing.bank_account.select',
  text: `select ${BANK_COLUMNS} from billing_bank_accounts where organization_id = $1 and id = $2`,
};

/** The default active bank account. $1 organization. */
export const selectDefaultBankAccount: SqlStatement = {
  name: 'billing.bank_account.select_default',
  text: `select ${BANK_COLUMNS} from billing_bank_accounts
where organization_id = $1 and is_default and is_active order by created_at limit 1`,
};

/** $1 organization, $2 the account that stays default. */
export const clearDefaultBankAccount: SqlStatement = {
  name: 'billing.bank_account.clear_default',
  text: 'update billing_bank_accounts set is_default = false where organization_id = $1 and id <> $2 and is_default',
};

/**
 * $1 id, $2 organization, $3 display name, $4 holder, $5 iban, $6 bic, $7 bank name, $8 reference
 * template, $9 creditor id, $10 notes, $11 currency, $12 default, $13 active, $14 data, $15 now.
 */
export const upsertBankAccount: SqlStatement = {
  name: 'billing.bank_account.upsert',
  text: `insert into billing_bank_accounts (id, organization_id, display_name, account_holder, iban, bic, bank_name,
  payment_reference_template, creditor_identifier, notes, currency, is_default, is_active, data, created_at,
  updated_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15, $15)
on conflict (id) do update set display_name = excluded.display_name, account_holder = excluded.account_holder,
  iban = excluded.iban, bic = excluded.bic, bank_name = excluded.bank_name,
  payment_reference_template = excluded.payment_reference_template,
  creditor_identifier = excluded.creditor_identifier, notes = excluded.notes, currency = excluded.currency,
  is_default = excluded.is_default, is_active = excluded.is_active, data = excluded.data,
  updated_at = excluded.updated_at
returning ${BANK_COLUMNS}`,
};
