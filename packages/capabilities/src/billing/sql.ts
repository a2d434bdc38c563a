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
  issued_at, paid_at, voided_at, created_at, updated_at`;

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
