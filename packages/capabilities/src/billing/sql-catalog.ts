import type { SqlStatement } from '../sql.js';

export const ACCOUNT_COLUMNS = `id, account_type, name, legal_name, address_line1, address_line2, postal_code, city,
  state, country_code, vat_id, email, buyer_reference, e_invoice_endpoint_id, e_invoice_endpoint_scheme_id,
  e_invoice_format, default_currency, payment_terms_days, notes, is_active, created_at, updated_at`;

export interface AccountRow {
  readonly id: string;
  readonly account_type: 'customer' | 'vendor' | 'both';
  readonly name: string;
  readonly legal_name: string | null;
  readonly address_line1: string | null;
  readonly address_line2: string | null;
  readonly postal_code: string | null;
  readonly city: string | null;
  readonly state: string | null;
  readonly country_code: string | null;
  readonly vat_id: string | null;
  readonly email: string | null;
  readonly buyer_reference: string | null;
  readonly e_invoice_endpoint_id: string | null;
  readonly e_invoice_endpoint_scheme_id: string | null;
  readonly e_invoice_format: 'pdf' | 'xrechnung' | 'facturx' | null;
  readonly default_currency: string | null;
  readonly payment_terms_days: number | null;
  readonly notes: string | null;
  readonly is_active: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** $1 organization, $2 id. */
export const selectAccount: SqlStatement = {
  name: 'billing.account.select',
  text: `select ${ACCOUNT_COLUMNS} from billing_accounts where organization_id = $1 and id = $2`,
};

/** Every column in ACCOUNT_COLUMNS order after $1 id, $2 organization; $22 now. */
export const upsertAccount: SqlStatement = {
  name: 'billing.account.upsert',
  text: `insert into billing_accounts (id, organization_id, account_type, name, legal_name, address_line1,
  address_line2, postal_code, city, state, country_code, vat_id, email, buyer_reference, e_invoice_endpoint_id,
  e_invoice_endpoint_scheme_id, e_invoice_format, default_currency, payment_terms_days, notes, is_active,
  created_at, updated_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $22)
on conflict (id) do update set account_type = excluded.account_type, name = excluded.name,
  legal_name = excluded.legal_name, address_line1 = excluded.address_line1,
  address_line2 = excluded.address_line2, postal_code = excluded.postal_code, city = excluded.city,
  state = excluded.state, country_code = excluded.country_code, vat_id = excluded.vat_id,
  email = excluded.email, buyer_reference = excluded.buyer_reference,
  e_invoice_endpoint_id = excluded.e_invoice_endpoint_id,
  e_invoice_endpoint_scheme_id = excluded.e_invoice_endpoint_scheme_id,
  e_invoice_format = excluded.e_invoice_format, default_currency = excluded.default_currency, payment_terms_days = excluded.payment_terms_days,
  notes = excluded.notes, is_active = excluded.is_active, updated_at = excluded.updated_at
returning ${ACCOUNT_COLUMNS}`,
};

/**
 * $1 organization, $2 LIKE pattern or null, $3 account type or null, $4 active only, $5 limit, $6 offset.
 * `both` accounts answer a customer or vendor filter too.
 */
export const searchAccounts: SqlStatement = {
  name: 'billing.account.search',
  text: `select ${ACCOUNT_COLUMNS} from billing_accounts
where organization_id = $1
  and ($2::text is null or name ilike $2 or legal_name ilike $2 or email ilike $2 or vat_id ilike $2)
  and ($3::text is null or account_type = $3 or account_type = 'both')
  and (not $4::boolean or is_active)
order by lower(name), id limit $5 offset $6`,
};

export const ITEM_COLUMNS = `id, name, sku, item_type, description, unit, unit_price::text as unit_price, currency,
  tax_name, tax_percent::text as tax_percent, is_active, updated_at`;

export interface ItemRow {
  readonly id: string;
  readonly name: string;
  readonly sku: string | null;
  readonly item_type: string;
  readonly description: string | null;
  readonly unit: string | null;
  readonly unit_price: string;
  readonly currency: string;
  readonly tax_name: string | null;
  readonly tax_percent: string | null;
  readonly is_active: boolean;
  readonly updated_at: Date;
}

/** $1 organization, $2 id. */
export const selectItem: SqlStatement = {
  name: 'billing.item.select',
  text: `select ${ITEM_COLUMNS} from billing_items where organization_id = $1 and id = $2`,
};

/**
 * $1 id, $2 organization, $3 name, $4 sku, $5 type, $6 description, $7 unit, $8 unit price, $9 currency,
 * $10 tax name, $11 tax percent, $12 active, $13 now.
 */
export const upsertItem: SqlStatement = {
  name: 'billing.item.upsert',
  text: `insert into billing_items (id, organization_id, name, sku, item_type, description, unit, unit_price, currency,
  tax_name, tax_percent, is_active, created_at, updated_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
on conflict (id) do update set name = excluded.name, sku = excluded.sku, item_type = excluded.item_type,
  description = excluded.description, unit = excluded.unit, unit_price = excluded.unit_price,
  currency = excluded.currency, tax_name = excluded.tax_name, tax_percent = excluded.tax_percent,
  is_active = excluded.is_active, updated_at = excluded.updated_at
returning ${ITEM_COLUMNS}`,
};

/** $1 organization, $2 LIKE pattern or null, $3 type or null, $4 active only, $5 limit, $6 offset. */
export const searchItems: SqlStatement = {
  name: 'billing.item.search',
  text: `select ${ITEM_COLUMNS} from billing_items
where organization_id = $1
  and ($2::text is null or name ilike $2 or sku ilike $2 or description ilike $2)
  and ($3::text is null or item_type = $3)
  and (not $4::boolean or is_active)
order by lower(name), id limit $5 offset $6`,
};
