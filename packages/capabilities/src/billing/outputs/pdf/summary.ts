import { money } from '../../money.js';
import type { BankAccountSnapshot, StoredBillingDocument } from '../../records.js';
import type { Locale } from './labels.js';
import { COLOR, CONTENT_WIDTH, FONT, heightOf, keepTogether, PAGE, type Pdf } from './page.js';

/** An amount row: label, formatted value, bold for a total. */
export type AmountRow = readonly [label: string, value: string, bold?: boolean];

/**
 * Amount rows in a column `width` wide at the right margin: the label, then the value right-aligned in
 * the last 100 pt; a bold row (a total) larger. The caller keeps the block together.
 */
export function drawAmountRows(pdf: Pdf, rows: readonly AmountRow[], width: number, fontSize: number): void {
  const labelX = PAGE.margin + CONTENT_WIDTH - width;
  for (const [label, value, bold] of rows) {
    const y = pdf.y;
    pdf
      .font(bold ? FONT.bold : FONT.regular)
      .fontSize(bold ? 10.5 : fontSize)
      .fillColor(COLOR.text);
    pdf.text(label, labelX, y, { width: width - 100 });
    pdf.text(value, labelX + width - 100, y, { width: 100, align: 'right' });
    pdf.y = y + 15;
  }
}

/** A paragraph across the content width in `fontSize`, kept whole on one page, with an optional bold title. */
export function drawParagraph(pdf: Pdf, text: string, fontSize: number, title?: string): void {
  keepTogether(pdf, heightOf(pdf, text, CONTENT_WIDTH, FONT.regular, fontSize) + (title ? 14 : 0) + 10);
  if (title) {
    pdf
      .font(FONT.bold)
      .fontSize(9.5)
      .fillColor(COLOR.text)
      .text(title, PAGE.margin, pdf.y, { width: CONTENT_WIDTH });
  }
  pdf
    .font(FONT.regular)
    .fontSize(fontSize)
    .fillColor(COLOR.text)
    .text(text, PAGE.margin, pdf.y, { width: CONTENT_WIDTH });
  pdf.y += 10;
}

/**
 * The payment paragraph's text: pay by `payBy`, the account holder, bank, IBAN in groups of four, BIC
 * and the number to quote as reference.
 */
export function bankDetails(
  bank: BankAccountSnapshot,
  locale: Locale,
  payBy: string | null,
  reference: string | null,
): string {
  const { labels } = locale;
  return [
    labels.payTo(payBy),
    `${labels.holder}: ${bank.account_holder}`,
    bank.bank_name ? `${labels.bank}: ${bank.bank_name}` : null,
    `${labels.iban}: ${bank.iban.replace(/(.{4})/g, '$1 ').trim()}`,
    bank.bic ? `${labels.bic}: ${bank.bic}` : null,
    reference ? `${labels.reference}: ${reference}` : null,
  ]
    .filter(Boolean)
    .join('\n');
}

/** The totals block's rows: subtotal, discounts, net, VAT per rate or exemption, total, paid, due. */
function totalRows(stored: StoredBillingDocument, locale: Locale): AmountRow[] {
  const { document } = stored;
  const { labels } = locale;
  const currency = document.currency;
  const amount = (value: string) => locale.money(value, currency);
  const rows: AmountRow[] = [[labels.subtotal, amount(document.subtotal)]];
  if (money(document.discount_total).gt(0))
    rows.push([labels.documentDiscount, `-${amount(document.discount_total)}`]);
  rows.push([labels.netTotal, amount(document.net_total)]);
  for (const group of document.tax_breakdown) {
    const rate =
      group.category === 'S'
        ? locale.percent(group.percent)
        : group.category === 'O'
          ? labels.notSubjectToVat
          : `${group.category} 0 %`;
    rows.push([labels.vatOf(rate, amount(group.taxable_amount)), amount(group.tax_amount)]);
  }
  rows.push([labels.total, amount(document.total), true]);
  // BT-111: a foreign-currency document states its VAT in the accounting currency too, with the rate.
  if (document.vat_accounting_currency !== null && document.tax_total_accounting !== null) {
    const accounting = document.vat_accounting_currency;
    const rate = `1 ${currency} = ${locale.number(document.exchange_rate ?? '0')} ${accounting}`;
    rows.push([
      labels.vatInAccounting(accounting, rate),
      locale.money(document.tax_total_accounting, accounting),
    ]);
  }
  if (money(document.paid_total).gt(0)) {
    rows.push([labels.paid, `-${amount(document.paid_total)}`]);
    rows.push([labels.balance, amount(document.balance), true]);
  }
  return rows;
}

/** The VAT notes the rules require on the document: each exemption reason, reverse charge. */
function taxNotes(stored: StoredBillingDocument, locale: Locale): string[] {
  const notes = stored.document.tax_breakdown
    .filter((group) => group.category !== 'S' && group.category !== 'Z' && group.exemption_reason)
    .map((group) => `${group.category}: ${group.exemption_reason}`);
  if (stored.document.tax_breakdown.some((group) => group.category === 'AE'))
    notes.push(locale.labels.reverseCharge);
  return notes;
}

/** The totals block, kept whole on one page, right-aligned under the lines. */
export function drawTotals(pdf: Pdf, stored: StoredBillingDocument, locale: Locale): void {
  const rows = totalRows(stored, locale);
  const notes = taxNotes(stored, locale);
  const notesHeight = notes.reduce(
    (sum, note) => sum + heightOf(pdf, note, CONTENT_WIDTH, FONT.regular, 8) + 2,
    0,
  );
  keepTogether(pdf, rows.length * 15 + notesHeight + 12);
  drawAmountRows(pdf, rows, 300, 9);
  pdf.y += 4;
  pdf.font(FONT.regular).fontSize(8).fillColor(COLOR.muted);
  for (const note of notes) pdf.text(note, PAGE.margin, pdf.y, { width: CONTENT_WIDTH });
  pdf.y += 10;
}

/** Payment details (invoices only) and the document's terms and notes, each kept whole. */
export function drawPaymentAndNotes(pdf: Pdf, stored: StoredBillingDocument, locale: Locale): void {
  const { document } = stored;
  const bank = document.bank_account;
  if (bank && document.document_type === 'invoice' && money(document.balance).gt(0)) {
    const payBy = locale.date(document.due_date);
    drawParagraph(pdf, bankDetails(bank, locale, payBy, document.number), 9, locale.labels.payment);
  }
  const terms = document.terms ?? document.issuer.payment_terms;
  if (terms) drawParagraph(pdf, terms, 9);
  if (document.notes) drawParagraph(pdf, document.notes, 9);
}
