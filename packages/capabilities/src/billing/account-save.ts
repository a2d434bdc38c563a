import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, currencyCode, iso, notFound } from './common.js';
import { type AccountRow, selectAccount, upsertAccount } from './sql-catalog.js';

const FIELDS = [
  'account_type',
  'name',
  'legal_name',
  'address_line1',
  'address_line2',
  'postal_code',
  'city',
  'state',
  'country_code',
  'vat_id',
  'email',
  'buyer_reference',
  'e_invoice_endpoint_id',
  'e_invoice_endpoint_scheme_id',
  'e_invoice_format',
  'default_currency',
  'payment_terms_days',
  'notes',
  'is_active',
] as const;

export type AccountSaveInput = { name: string; id?: string } & {
  [K in (typeof FIELDS)[number]]?: unknown;
};

export function accountOutput(row: AccountRow) {
  return { ...row, created_at: iso(row.created_at) as string, updated_at: iso(row.updated_at) as string };
}

const DEFAULTS: Partial<Record<(typeof FIELDS)[number], unknown>> = {
  account_type: 'customer',
  is_active: true,
};

/**
 * `billing.account.save`: creates (no id) or updates (id; fields left out keep their value) a customer
 * or vendor. Documents copy what they show of it at create_draft, so a later change here never
 * changes an issued document.
 */
export const billingAccountSaveHandler = defineCapabilityHandler<AccountSaveInput, unknown>({
  contract: billingContract('billing.account.save'),
  async handle(input, ctx) {
    const org = ctx.organizationId;
    let existing: AccountRow | undefined;
    if (input.id !== undefined) {
      existing = (await runStatement<AccountRow>(ctx.sql, selectAccount, [org, input.id])).rows[0];
      if (existing === undefined) notFound('account', input.id);
    }
    if (typeof input.default_currency === 'string') {
      input.default_currency = currencyCode(input.default_currency, '/params/default_currency');
    }
    const values = FIELDS.map((name) =>
      input[name] !== undefined ? input[name] : (existing?.[name] ?? DEFAULTS[name] ?? null),
    );
    const { rows } = await runStatement<AccountRow>(ctx.sql, upsertAccount, [
      existing?.id ?? ctx.ids.uuid(),
      org,
      ...values,
      ctx.now,
    ]);
    return { account: accountOutput(rows[0] as AccountRow), created: existing === undefined };
  },
});
