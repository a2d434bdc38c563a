import type { TaxCategory } from './totals.js';
/**
 * Billing rows as the SQL port returns them: numerics as strings (exact), dates as `YYYY-MM-DD`
 * strings, timestamps as Date, jsonb parsed. These are the stable shapes other code (the einvoice
 * outputs) reads an issued document through; see `readDocument`.
 */

/** The counterparty as frozen onto a document at create_draft (from the account, else empty). */
export interface CounterpartySnapshot {
  readonly account_id?: string | null;
  readonly name?: string | null;
  readonly legal_name?: string | null;
  readonly address_line1?: string | null;
  readonly address_line2?: string | null;
  readonly postal_code?: string | null;
  readonly city?: string | null;
  readonly state?: string | null;
  readonly country_code?: string | null;
  readonly vat_id?: string | null;
  readonly email?: string | null;
  readonly buyer_reference?: string | null;
  readonly e_invoice_endpoint_id?: string | null;
  readonly e_invoice_endpoint_scheme_id?: string | null;
}

/** The issuer as frozen onto a document at finalize (from its profile; drafts carry the draft-time copy). */
export interface IssuerSnapshot {
  readonly profile_id?: string | null;
  readonly profile_key?: string | null;
  readonly issuer_name?: string | null;
  readonly issuer_legal_name?: string | null;
  readonly issuer_address_line1?: string | null;
  readonly issuer_address_line2?: string | null;
  readonly issuer_postal_code?: string | null;
  readonly issuer_city?: string | null;
  readonly issuer_state?: string | null;
  readonly issuer_country?: string | null;
  readonly issuer_vat_id?: string | null;
  readonly issuer_email?: string | null;
  readonly issuer_phone?: string | null;
  readonly issuer_website?: string | null;
  readonly sender_line?: string | null;
  readonly footer_text?: string | null;
  readonly payment_terms?: string | null;
  readonly legal_footer_lines?: readonly string[];
  readonly locale?: string | null;
}

/** The bank account as frozen onto a document at finalize (null when the profile names none). */
export interface BankAccountSnapshot {
  readonly id: string;
  readonly display_name: string;
  readonly account_holder: string;
  readonly iban: string;
  readonly bic: string | null;
  readonly bank_name: string | null;
  readonly payment_reference_template: string | null;
  readonly creditor_identifier: string | null;
}

/** One row of the EN 16931 VAT breakdown (BG-23) as frozen on the document. */
export interface TaxBreakdownRow {
  readonly category: TaxCategory;
  readonly percent: string;
  readonly taxable_amount: string;
  readonly tax_amount: string;
  readonly exemption_reason: string | null;
}

/** A document-level allowance (BG-20). */
export interface DocumentDiscountRow {
  readonly amount: string;
  readonly tax_percent: string;
  readonly reason: string | null;
}

/** One `billing_documents` row. */
export interface BillingDocumentRow {
  readonly id: string;
  readonly organization_id: string;
  readonly installation_id: string;
  readonly document_type: 'quote' | 'sales_order' | 'invoice' | 'credit_note' | 'self_billing_invoice';
  readonly status: string;
  readonly payment_status: string | null;
  readonly number: string | null;
  readonly number_sequence: string | null;
  readonly title: string | null;
  readonly document_date: string;
  readonly due_date: string | null;
  readonly valid_until: string | null;
  readonly service_date: string | null;
  readonly currency: string;
  readonly profile_id: string | null;
  readonly account_id: string | null;
  readonly vendor_id: string | null;
  readonly source_document_id: string | null;
  readonly source_document_type: string | null;
  /** The invoice a credit note corrects. */
  readonly corrects_document_id: string | null;
  readonly counterparty_name: string | null;
  readonly counterparty_email: string | null;
  readonly counterparty: CounterpartySnapshot;
  readonly issuer: IssuerSnapshot;
  readonly bank_account: BankAccountSnapshot | null;
  readonly buyer_reference: string | null;
  readonly order_reference: string | null;
  readonly customer_e_invoice_endpoint_id: string | null;
  readonly customer_e_invoice_endpoint_scheme_id: string | null;
  readonly notes: string | null;
  readonly terms: string | null;
  readonly shipping_address: Record<string, unknown> | null;
  readonly tax_treatment: string;
  readonly customer_tax_id: string | null;
  readonly customer_country_code: string | null;
  readonly document_discounts: readonly DocumentDiscountRow[];
  readonly tax_breakdown: readonly TaxBreakdownRow[];
  readonly subtotal: string;
  readonly discount_total: string;
  readonly net_total: string;
  readonly tax_total: string;
  readonly reverse_charge_tax_total: string;
  readonly total: string;
  readonly paid_total: string;
  readonly credited_total: string;
  readonly balance: string;
  readonly issued_at: Date | null;
  readonly paid_at: Date | null;
  readonly voided_at: Date | null;
  readonly sent_at: Date | null;
  /** BT-6: the VAT accounting currency, when the document is in another currency and states it. */
  readonly vat_accounting_currency: string | null;
  /** Units of the VAT accounting currency per one unit of the document currency. */
  readonly exchange_rate: string | null;
  /** BT-111: the VAT total in the VAT accounting currency (set at finalize). */
  readonly tax_total_accounting: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** One `billing_document_lines` row. */
export interface BillingLineRow {
  readonly id: string;
  readonly document_id: string;
  readonly position: number;
  readonly item_id: string | null;
  readonly item_name: string;
  readonly sku: string | null;
  readonly description: string | null;
  readonly unit: string | null;
  readonly quantity: string;
  readonly unit_price: string;
  readonly discount_amount: string;
  readonly line_gross: string;
  /** Line net amount (BT-131): quantity × unit price − discount, rounded. */
  readonly line_total: string;
  readonly tax_name: string | null;
  /** The rate as given on the line (the notional rate under reverse charge). */
  readonly tax_percent: string;
  readonly tax_category: TaxCategory;
  readonly tax_amount: string;
}

/** One `billing_payments` row. */
export interface BillingPaymentRow {
  readonly id: string;
  readonly document_id: string;
  readonly account_id: string | null;
  readonly status: string;
  readonly amount: string;
  readonly currency: string;
  readonly payment_date: string;
  readonly payment_method: string | null;
  readonly reference: string | null;
  readonly notes: string | null;
  readonly created_at: Date;
}

/** A document with its lines and payments. */
export interface StoredBillingDocument {
  readonly document: BillingDocumentRow;
  readonly lines: readonly BillingLineRow[];
  readonly payments: readonly BillingPaymentRow[];
}

/**
 * Statuses of an issued document with a balance still owed: `sent` is `open` after
 * billing.document.send mailed it (the money state is the same).
 */
export const OPEN_STATUSES: readonly string[] = ['open', 'sent', 'partially_paid'];
