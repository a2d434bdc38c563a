import { CapabilityError } from '../define.js';
import { toNumber } from './money.js';
import type { BillingDocumentRow, BillingLineRow, BillingPaymentRow } from './records.js';

export { contractOf as billingContract } from '../contract-of.js';

export function notFound(what: string, id: string): never {
  throw new CapabilityError('not_found', `No ${what} ${id} in this organization.`);
}

export function conflict(message: string, hint?: string): never {
  throw new CapabilityError('conflict', message, [], undefined, hint);
}

/** A 400 at `pointer` for a business rule; `hint` says what would pass (e.g. the amount allowed). */
export function invalid(pointer: string, message: string, hint?: string): never {
  throw new CapabilityError('validation_failed', `${pointer} ${message}`, [
    { schema_pointer: pointer, keyword: 'billing', message, ...(hint === undefined ? {} : { hint }) },
  ]);
}

export const iso = (value: Date | null | undefined): string | null =>
  value == null ? null : new Date(value).toISOString();

/** `YYYY-MM-DD` of an instant in UTC. */
export const utcDate = (value: Date): string => value.toISOString().slice(0, 10);

/** A 3-letter ISO 4217 code, upper case, or a 400 at `pointer`. */
export function currencyCode(value: string, pointer: string): string {
  const code = value.toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) invalid(pointer, 'must be a 3-letter ISO 4217 currency code');
  return code;
}

/** The paging of a list/search input with the contracts' defaults (20 per page from 0). */
export function paging(input: { limit?: number; offset?: number }): { limit: number; offset: number } {
  return { limit: input.limit ?? 20, offset: input.offset ?? 0 };
}

/** `{ records, count, limit, offset }`. */
export function page<T>(records: T[], limit: number, offset: number) {
  return { records, count: records.length, limit, offset };
}

/** `%`, `_` and `\` escaped for a LIKE pattern. */
export function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The contracts' DocumentRecord of a stored row. */
export function documentRecord(row: BillingDocumentRow) {
  return {
    id: row.id,
    document_type: row.document_type,
    status: row.status,
    payment_status: row.payment_status,
    number: row.number,
    title: row.title,
    counterparty_name: row.counterparty_name,
    document_date: row.document_date,
    currency: row.currency,
    total: toNumber(row.total),
    balance: toNumber(row.balance),
    source_document_id: row.source_document_id,
    source_document_type: row.source_document_type,
    created_at: iso(row.created_at) as string,
    account_id: row.account_id,
    vendor_id: row.vendor_id,
    counterparty_email: row.counterparty_email,
    valid_until: row.valid_until,
    due_date: row.due_date,
    subtotal: toNumber(row.subtotal),
    discount_total: toNumber(row.discount_total),
    tax_total: toNumber(row.tax_total),
    reverse_charge_tax_total: toNumber(row.reverse_charge_tax_total),
    sent_at: iso(row.sent_at),
  };
}

/** The contracts' LineRecord of a stored line. */
export function lineRecord(row: BillingLineRow) {
  return {
    id: row.id,
    document_id: row.document_id,
    item_id: row.item_id,
    position: row.position,
    item_name: row.item_name,
    quantity: toNumber(row.quantity),
    unit_price: toNumber(row.unit_price),
    tax_amount: toNumber(row.tax_amount),
    line_total: toNumber(row.line_total),
    sku: row.sku,
    description: row.description,
    unit: row.unit,
    discount_amount: toNumber(row.discount_amount),
    tax_name: row.tax_name,
    tax_percent: toNumber(row.tax_percent),
  };
}

/** The contracts' PaymentRecord of a stored payment. */
export function paymentRecord(row: BillingPaymentRow) {
  return {
    id: row.id,
    document_id: row.document_id,
    status: row.status,
    amount: toNumber(row.amount),
    currency: row.currency,
    payment_date: row.payment_date,
    payment_method: row.payment_method,
    reference: row.reference,
    notes: row.notes,
    account_id: row.account_id,
    created_at: iso(row.created_at) as string,
  };
}

/** Document types that are paid (payments, reminders, payment_status). */
export const PAYABLE_TYPES: readonly string[] = ['invoice', 'self_billing_invoice'];

/** `YYYY-MM-DD` plus `days`. */
export function addDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}
