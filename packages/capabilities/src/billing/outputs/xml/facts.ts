import { money, roundTo } from '../../money.js';
import type { BillingLineRow, StoredBillingDocument, TaxBreakdownRow } from '../../records.js';

/** An issued document plus what an e-invoice needs from outside it: the invoice a credit note corrects. */
export interface EInvoiceSource extends StoredBillingDocument {
  readonly preceding?: { readonly number: string; readonly document_date: string } | null;
}

export const XRECHNUNG_CUSTOMIZATION_ID =
  'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';
export const EN16931_GUIDELINE_ID = 'urn:cen.eu:en16931:2017';
/** BT-23: the PEPPOL billing process XRechnung 3.0 names. */
export const BILLING_PROCESS_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/** VATEX codes (BT-121) of the categories whose exemption the rules require to be stated. */
const EXEMPTION_CODES: Readonly<Record<string, string>> = {
  AE: 'VATEX-EU-AE',
  K: 'VATEX-EU-IC',
  G: 'VATEX-EU-G',
  O: 'VATEX-EU-O',
};

/** UN/ECE Recommendation 20 codes of the units people write on lines; anything else is C62 ("one"). */
const UNIT_CODES: Readonly<Record<string, string>> = {
  h: 'HUR',
  hr: 'HUR',
  hour: 'HUR',
  hours: 'HUR',
  std: 'HUR',
  stunde: 'HUR',
  stunden: 'HUR',
  min: 'MIN',
  minute: 'MIN',
  day: 'DAY',
  days: 'DAY',
  tag: 'DAY',
  tage: 'DAY',
  week: 'WEE',
  month: 'MON',
  monat: 'MON',
  year: 'ANN',
  jahr: 'ANN',
  kg: 'KGM',
  g: 'GRM',
  t: 'TNE',
  km: 'KMT',
  m: 'MTR',
  m2: 'MTK',
  'm²': 'MTK',
  m3: 'MTQ',
  l: 'LTR',
  kwh: 'KWH',
  pc: 'H87',
  pcs: 'H87',
  piece: 'H87',
  pieces: 'H87',
  stk: 'H87',
  stück: 'H87',
  flat: 'LS',
  pauschal: 'LS',
  ls: 'LS',
};

/** The Rec 20 code of a unit: a code already (2–3 upper-case letters/digits) or a known word; else null. */
export function knownUnitCode(unit: string | null): string | null {
  if (unit === null || unit.trim() === '') return null;
  const trimmed = unit.trim();
  if (/^[A-Z0-9]{2,3}$/.test(trimmed)) return trimmed;
  return UNIT_CODES[trimmed.toLowerCase().replace(/\.$/, '')] ?? null;
}

/** The line's unit as a Rec 20 code: a known word, a code already, else C62 ("one"). */
export function unitCode(unit: string | null): string {
  return knownUnitCode(unit) ?? 'C62';
}

/** An amount in the document currency's minor units, as the XML writes it (`1234.50`). */
export function amount(value: string, currency: string): string {
  return roundTo(money(value), currency).toFixed();
}

/** A quantity or price without trailing zeros (`7.5`, `19.99`). */
export function decimal(value: string): string {
  return money(value).toFixed();
}

/**
 * The VAT rate (BT-152, BT-96) a category applies: the line's rate for S, none at all for O (BR-O-05,
 * BR-O-06: not subject to VAT has no rate), 0 for every other category. The breakdown (BT-119) states
 * 0 for O all the same: XRechnung requires a rate there (BR-DE-14) and EN 16931 allows it.
 */
export function appliedPercent(category: string, percent: string): string | null {
  if (category === 'O') return null;
  return category === 'S' ? decimal(percent) : '0';
}

/**
 * True for a document not subject to VAT (category O). It states no VAT identifiers (BR-O-02: neither
 * the seller's nor the buyer's); the seller's VAT id identifies the seller as BT-29 instead, which
 * BR-CO-26 then finds (the profile has no register number to state as BT-30).
 */
export function notSubjectToVat(source: StoredBillingDocument): boolean {
  return source.document.tax_breakdown.some((row) => row.category === 'O');
}

/** BT-120/BT-121 of a VAT breakdown row: the stated reason and its VATEX code where there is one. */
export function exemption(row: Pick<TaxBreakdownRow, 'category' | 'exemption_reason'>) {
  if (row.category === 'S' || row.category === 'Z') return { reason: null, code: null };
  return { reason: row.exemption_reason, code: EXEMPTION_CODES[row.category] ?? null };
}

/** The category of the lines a document discount reduces (given by their rate as entered). */
export function discountCategory(lines: readonly BillingLineRow[], percent: string): string {
  const line = lines.find((candidate) => money(candidate.tax_percent).equals(money(percent)));
  return line?.tax_category ?? 'S';
}

/** Σ of the lines' net amounts (BT-106). */
export function lineNetTotal(source: StoredBillingDocument): string {
  const { document, lines } = source;
  return amount(
    lines.reduce((sum, line) => sum.plus(money(line.line_total)), money(0)).toFixed(),
    document.currency,
  );
}

/** Σ of the document-level allowances (BT-107). */
export function allowanceTotal(source: StoredBillingDocument): string {
  const { document } = source;
  return amount(
    document.document_discounts
      .reduce((sum, discount) => sum.plus(money(discount.amount)), money(0))
      .toFixed(),
    document.currency,
  );
}

/**
 * BT-6 and BT-111: the VAT accounting currency and the VAT total in it, when the document is in another
 * currency and finalize froze a converted total; otherwise null (BT-6 absent).
 */
export function vatInAccountingCurrency(
  source: StoredBillingDocument,
): { currency: string; taxTotal: string } | null {
  const { document } = source;
  if (document.vat_accounting_currency === null || document.tax_total_accounting === null) return null;
  return {
    currency: document.vat_accounting_currency,
    taxTotal: amount(document.tax_total_accounting, document.vat_accounting_currency),
  };
}

/** BT-115: what is still to pay when the e-invoice is made (the total less what was paid before). */
export function payable(source: StoredBillingDocument): { prepaid: string; payable: string } {
  const { document } = source;
  const prepaid = money(document.paid_total);
  return {
    prepaid: amount(prepaid.toFixed(), document.currency),
    payable: amount(money(document.total).minus(prepaid).toFixed(), document.currency),
  };
}

/** The buyer's electronic address (BT-49): the document's, else the account's, else its email. */
export function buyerEndpoint(source: StoredBillingDocument): { id: string; scheme: string } | null {
  const { document } = source;
  const { counterparty } = document;
  if (document.customer_e_invoice_endpoint_id) {
    return {
      id: document.customer_e_invoice_endpoint_id,
      scheme: document.customer_e_invoice_endpoint_scheme_id ?? 'EM',
    };
  }
  if (counterparty.e_invoice_endpoint_id) {
    return {
      id: counterparty.e_invoice_endpoint_id,
      scheme: counterparty.e_invoice_endpoint_scheme_id ?? 'EM',
    };
  }
  const email = counterparty.email ?? document.counterparty_email;
  return email ? { id: email, scheme: 'EM' } : null;
}

/** BT-10: the document's buyer reference, else the account's (Leitweg-ID for German public buyers). */
export function buyerReference(source: StoredBillingDocument): string | null {
  return source.document.buyer_reference ?? source.document.counterparty.buyer_reference ?? null;
}

/** BT-72 (actual delivery date): the service date; an intra-community supply must state one (BR-IC-11). */
export function deliveryDate(source: StoredBillingDocument): string | null {
  const { document } = source;
  if (document.service_date) return document.service_date;
  return document.tax_breakdown.some((row) => row.category === 'K') ? document.document_date : null;
}

/** BT-20: the payment terms as text (the issuer's terms, else a due-date sentence). */
export function paymentTermsText(source: StoredBillingDocument): string | null {
  const { document } = source;
  if (document.terms) return document.terms;
  if (document.issuer.payment_terms) return document.issuer.payment_terms;
  return document.due_date ? `Payable by ${document.due_date}.` : null;
}
