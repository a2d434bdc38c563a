import { money } from '../../money.js';
import type { StoredBillingDocument } from '../../records.js';
import type { Locale } from './labels.js';
import { COLOR, CONTENT_WIDTH, FONT, heightOf, keepTogether, PAGE, type Pdf } from './page.js';

type Row = readonly [label: string, value: string, bold?: boolean];

/** The totals block's rows: subtotal, discounts, net, VAT per rate or exemption, total, paid, due. */
function totalRows(stored: StoredBillingDocument, locale: Locale): Row[] {
  const { document } = stored;
  const { labels } = locale;
  const currency = document.currency;
  const amount = (value: string) => locale.money(value, currency);
  const rows: Row[] = [[labels.subtotal, amount(document.subtotal)]];
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
  const labelX = PAGE.margin + CONTENT_WIDTH - 300;
  for (const [label, value, bold] of rows) {
    const y = pdf.y;
    pdf
      .font(bold ? FONT.bold : FONT.regular)
      .fontSize(bold ? 10.5 : 9)
      .fillColor(COLOR.text);
    pdf.text(label, labelX, y, { width: 200 });
    pdf.text(value, labelX + 200, y, { width: 100, align: 'right' });
    pdf.y = y + 15;
  }
  pdf.y += 4;
  pdf.font(FONT.regular).fontSize(8).fillColor(COLOR.muted);
  for (const note of notes) pdf.text(note, PAGE.margin, pdf.y, { width: CONTENT_WIDTH });
  pdf.y += 10;
}

/** Payment details (invoices only) and the document's terms and notes, each kept whole. */
export function drawPaymentAndNotes(pdf: Pdf, stored: StoredBillingDocument, locale: Locale): void {
  const { document } = stored;
  const { labels } = locale;
  const bank = document.bank_account;
  const paragraphs: { title?: string; text: string }[] = [];
  if (bank && document.document_type === 'invoice' && money(document.balance).gt(0)) {
    const lines = [
      labels.payTo(locale.date(document.due_date)),
      `${labels.holder}: ${bank.account_holder}`,
      bank.bank_name ? `${labels.bank}: ${bank.bank_name}` : null,
      `${labels.iban}: ${bank.iban.replace(/(.{4})/g, '$1 ').trim()}`,
      bank.bic ? `${labels.bic}: ${bank.bic}` : null,
      document.number ? `${labels.reference}: ${document.number}` : null,
    ];
    paragraphs.push({ title: labels.payment, text: lines.filter(Boolean).join('\n') });
  }
  const terms = document.terms ?? document.issuer.payment_terms;
  if (terms) paragraphs.push({ text: terms });
  if (document.notes) paragraphs.push({ text: document.notes });
  for (const paragraph of paragraphs) {
    const height =
      heightOf(pdf, paragraph.text, CONTENT_WIDTH, FONT.regular, 9) + (paragraph.title ? 14 : 0) + 10;
    keepTogether(pdf, height);
    if (paragraph.title) {
      pdf
        .font(FONT.bold)
        .fontSize(9.5)
        .fillColor(COLOR.text)
        .text(paragraph.title, PAGE.margin, pdf.y, { width: CONTENT_WIDTH });
    }
    pdf
      .font(FONT.regular)
      .fontSize(9)
      .fillColor(COLOR.text)
      .text(paragraph.text, PAGE.margin, pdf.y, { width: CONTENT_WIDTH });
    pdf.y += 10;
  }
}
