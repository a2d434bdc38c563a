import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, currencyCode, invalid, iso, notFound } from './common.js';
import {
  type BankAccountRow,
  clearDefaultBankAccount,
  selectBankAccount,
  selectDefaultBankAccount,
  upsertBankAccount,
} from './sql-settings.js';

export interface BankAccountSaveInput {
  display_name: string;
  account_holder: string;
  iban: string;
  id?: string;
  bank_name?: string | null;
  bic?: string | null;
  payment_reference_template?: string | null;
  creditor_identifier?: string | null;
  notes?: string | null;
  currency?: string;
  is_default?: boolean;
  is_active?: boolean;
  data?: Record<string, unknown>;
}

/** IBAN check (ISO 13616: country, check digits, mod 97 = 1), spaces ignored. */
export function normalizedIban(iban: string): string | undefined {
  const compact = iban.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/.test(compact)) return undefined;
  const digits = (compact.slice(4) + compact.slice(0, 4)).replace(/[A-Z]/g, (c) =>
    String(c.charCodeAt(0) - 55),
  );
  let remainder = 0;
  for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  return remainder === 1 ? compact : undefined;
}

/**
 * `billing.bank_account.save`: creates or updates (with id) a bank account; the IBAN must pass its
 * check digits. The organization's first account is its default. Risk `high` (the contract's): a
 * changed IBAN redirects customers' money, so an operator approves it.
 */
export const billingBankAccountSaveHandler = defineCapabilityHandler<BankAccountSaveInput, unknown>({
  contract: billingContract('billing.bank_account.save'),
  async handle(input, ctx) {
    const org = ctx.organizationId;
    let existing: BankAccountRow | undefined;
    if (input.id !== undefined) {
      existing = (await runStatement<BankAccountRow>(ctx.sql, selectBankAccount, [org, input.id])).rows[0];
      if (existing === undefined) notFound('bank account', input.id);
    }
    const iban = normalizedIban(input.iban);
    if (iban === undefined) invalid('/params/iban', 'is not a valid IBAN (country, check digits, mod 97)');
    const id = existing?.id ?? ctx.ids.uuid();
    const hasDefault = (await runStatement(ctx.sql, selectDefaultBankAccount, [org])).rows.length > 0;
    const isDefault = input.is_default ?? existing?.is_default ?? !hasDefault;
    const pick = <K extends keyof BankAccountSaveInput & keyof BankAccountRow>(name: K) =>
      input[name] === undefined ? (existing?.[name] ?? null) : input[name];
    const { rows } = await runStatement<BankAccountRow>(ctx.sql, upsertBankAccount, [
      id,
      org,
      input.display_name,
      input.account_holder,
      iban,
      pick('bic'),
      pick('bank_name'),
      pick('payment_reference_template'),
      pick('creditor_identifier'),
      pick('notes'),
      input.currency === undefined
        ? (existing?.currency ?? 'EUR')
        : currencyCode(input.currency, '/params/currency'),
      isDefault,
      input.is_active ?? existing?.is_active ?? true,
      JSON.stringify(input.data ?? existing?.data ?? {}),
      ctx.now,
    ]);
    if (isDefault) await runStatement(ctx.sql, clearDefaultBankAccount, [org, id]);
    const row = rows[0] as BankAccountRow;
    return {
      bank_account: {
        ...row,
        created_at: iso(row.created_at) as string,
        updated_at: iso(row.updated_at) as string,
      },
    };
  },
});
