import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { checkedBic, checkedIban } from './bank-identifiers.js';
import { billingContract, currencyCode, iso, notFound } from './common.js';
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

/**
 * `billing.bank_account.save`: creates or updates (with id) a bank account; the IBAN must pass its
 * country's rules and the BIC its format (bank-identifiers.ts). The organization's first account is its default. Risk `high` (the contract's): a
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
    const iban = checkedIban(input.iban, '/params/iban');
    const bic = input.bic === undefined ? (existing?.bic ?? null) : checkedBic(input.bic, '/params/bic');
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
      bic,
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
