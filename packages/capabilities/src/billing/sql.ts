import type { SqlStatement } from '../sql.js';

/** Columns of `billing_documents` every reader selects (numerics come back as strings). */
export const DOCUMENT_COLUMNS = `id, organization_id, installation_id, document_type, status, payment_status, number,
  number_sequence, title, to_char(document_date, 'YYYY-MM-DD') as document_date,
  to_char(due_date, 'YYYY-MM-DD') as due_date, to_char(valid_until, 'YYYY-MM-DD') as valid_until,
  to_char(service_date, 'YYYY-MM-DD') as service_date, currency, profile_id, account_id, vendor_id,
  source_document_id, source_document_type, corrects_document_id, counterparty_name, counterparty_email,
  counterparty, issuer, bank_account, buyer_reference, order_reference, customer_e_invoice_endpoint_id,
  customer_e_invoice_endpoint_scheme_id, notes, terms, shipping_address, tax_treatment, customer_tax_id,
  customer_country_code, document_discounts, tax_breakdown, subtotal::text as subtotal,
  discount_total::text as discount_total, net_total::text as net_total, tax_total::text as tax_total,
  reverse_charge_tax_total::text as reverse_charge_tax_total, total::text as total,
  paid_total::text as paid_total, credited_total::text as credited_total, balance::text as balance,
  vat_accounting_currency, exchange_rate::text as exchange_rate,
  tax_total_accounting::text as tax_total_accounting, issued_at, paid_at, voided_at, sent_at, created_at, updated_at`;

const LINE_COLUMNS = `id, document_id, position, item_id, item_name, sku, description, unit,
  quantity::text as quantity, unit_price::text as unit_price, discount_amount::text as discount_amount,
  line_gross::text as line_gross, line_total::text as line_total, tax_name, tax_percent::text as tax_percent,
  tax_category, tax_amount::text as tax_amount`;

export const PAYMENT_COLUMNS = `id, document_id, account_id, status, amount::text as amount, currency,
  to_char(payment_date, 'YYYY-MM-DD') as payment_date, payment_method, reference, notes, created_at`;

/** $1 organization, $2 document id. */
export const selectDocument: SqlStatement = {
  name: 'billing.document.select',
  text: `select ${DOCUMENT_COLUMNS} from billing_documents where organization_id = $1 and id = $2`,
};

/** The same row locked for the rest of the transaction (finalize, payments, void, reminders). */
export const selectDocumentForUpdate: SqlStatement = {
  name: 'billing.document.select_for_update',
  text: `select ${DOCUMENT_COLUMNS} from billing_documents where organization_id = $1 and id = $2 for update`,
};

/** $1 organization, $2 document id. */
export const selectLines: SqlStatement = {
  name: 'billing.line.select_by_document',
  text: `select ${LINE_COLUMNS} from billing_document_lines
where organization_id = $1 and document_id = $2 order by position`,
};

/** $1 organization, $2 document id. */
export const selectPaymentsOfDocument: SqlStatement = {
  name: 'billing.payment.select_by_document',
  text: `select ${PAYMENT_COLUMNS} from billing_payments
where organization_id = $1 and document_id = $2 order by created_at, id`,
};

/**
 * Takes the next number of a (organization, profile, type, year) sequence. The upsert locks the counter
 * row until the finalize transaction ends: a concurrent finalize waits, and a rolled-back one gives its
 * number back, so numbers are unique and without gaps. $1 organization, $2 profile scope, $3 type, $4 year.
 */
export const nextNumber: SqlStatement = {
  name: 'billing.counter.next',
  text: `insert into billing_number_counters as c (organization_id, profile_scope, document_type, year, last_value)
values ($1, $2, $3, $4, 1)
on conflict (organization_id, profile_scope, document_type, year)
do update set last_value = c.last_value + 1
returning last_value::text as last_value`,
};

const INSERT_DOCUMENT_COLUMNS = [
  'id',
  'organization_id',
  'installation_id',
  'document_type',
  'status',
  'payment_status',
  'title',
  'document_date',
  'due_date',
  'valid_until',
  'service_date',
  'currency',
  'profile_id',
  'account_id',
  'vendor_id',
  'source_document_id',
  'source_document_type',
  'corrects_document_id',
  'counterparty_name',
  'counterparty_email',
  'counterparty',
  'issuer',
  'buyer_reference',
  'order_reference',
  'customer_e_invoice_endpoint_id',
  'customer_e_invoice_endpoint_scheme_id',
  'notes',
  'terms',
  'shipping_address',
  'tax_treatment',
  'customer_tax_id',
  'customer_country_code',
  'document_discounts',
  'tax_breakdown',
  'subtotal',
  'discount_total',
  'net_total',
  'tax_total',
  'reverse_charge_tax_total',
  'total',
  'balance',
  'vat_accounting_currency',
  'exchange_rate',
  'created_at',
  'updated_at',
] as const;
export type InsertDocumentColumn = (typeof INSERT_DOCUMENT_COLUMNS)[number];

/** One draft document; parameters in {@link INSERT_DOCUMENT_COLUMNS} order. */
export const insertDocument: SqlStatement = {
  name: 'billing.document.insert',
  text: `insert into billing_documents (${INSERT_DOCUMENT_COLUMNS.join(', ')})
values (${INSERT_DOCUMENT_COLUMNS.map((_c, i) => `$${i + 1}`).join(', ')})`,
};
export { INSERT_DOCUMENT_COLUMNS };

/**
 * One line: $1 id, $2 organization, $3 document, $4 position, $5 item, $6 name, $7 sku, $8 description,
 * $9 unit, $10 quantity, $11 unit price, $12 discount, $13 gross, $14 net, $15 tax name, $16 percent,
 * $17 category, $18 tax amount.
 */
export const insertLine: SqlStatement = {
  name: 'billing.line.insert',
  text: `insert into billing_document_lines (id, organization_id, document_id, position, item_id, item_name, sku,
  description, unit, quantity, unit_price, discount_amount, line_gross, line_total, tax_name, tax_percent,
  tax_category, tax_amount)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
};

/** A live (not void) conversion of a source to a type. $1 organization, $2 source, $3 target type. */
export const selectConversion: SqlStatement = {
  name: 'billing.document.select_conversion',
  text: `select ${DOCUMENT_COLUMNS} from billing_documents
where organization_id = $1 and source_document_id = $2 and document_type = $3 and status <> 'void'
order by created_at limit 1`,
};

/**
 * Issues a draft. $1 organization, $2 id, $3 number, $4 sequence, $5 status, $6 payment status,
 * $7 issuer, $8 bank account, $9 balance, $10 now, $11 VAT accounting currency, $12 exchange rate,
 * $13 VAT total in the accounting currency (the last three null for a document in that currency),
 * $14 the service date a document without one gets (one it has is kept).
 */
export const issueDocument: SqlStatement = {
  name: 'billing.document.issue',
  text: `update billing_documents set number = $3, number_sequence = $4, status = $5, payment_status = $6,
  issuer = $7::jsonb, bank_account = $8::jsonb, balance = $9, issued_at = $10, updated_at = $10,
  vat_accounting_currency = $11, exchange_rate = $12, tax_total_accounting = $13,
  service_date = coalesce(service_date, $14::date)
where organization_id = $1 and id = $2 and status = 'draft'
returning ${DOCUMENT_COLUMNS}`,
};

/** Money state after a payment or a credit. $1 organization, $2 id, $3 status, $4 payment status,
 * $5 paid total, $6 credited total, $7 balance, $8 paid_at, $9 now. */
export const updateDocumentMoney: SqlStatement = {
  name: 'billing.document.update_money',
  text: `update billing_documents set status = $3, payment_status = $4, paid_total = $5, credited_total = $6,
  balance = $7, paid_at = $8, updated_at = $9
where organization_id = $1 and id = $2
returning ${DOCUMENT_COLUMNS}`,
};

/** $1 organization, $2 id, $3 payment status, $4 now. */
export const voidDocument: SqlStatement = {
  name: 'billing.document.void',
  text: `update billing_documents set status = 'void', payment_status = $3, balance = 0, voided_at = $4,
  updated_at = $4
where organization_id = $1 and id = $2
returning ${DOCUMENT_COLUMNS}`,
};
