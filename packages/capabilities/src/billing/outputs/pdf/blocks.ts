import type { BillingLineRow, StoredBillingDocument } from '../../records.js';
import type { Locale } from './labels.js';
import { COLOR, CONTENT_WIDTH, FONT, heightOf, keepTogether, PAGE, type Pdf } from './page.js';
import { unitName } from './units.js';

const joinNonEmpty = (parts: readonly (string | null | undefined)[], separator: string) =>
  parts.filter((part): part is string => typeof part === 'string' && part.trim() !== '').join(separator);

/** A label and its value in the header's facts; a fact without a value is left out. */
export type Fact = readonly [label: string, value: string | null];

/** A document's facts: number, dates, references. */
function documentFacts(stored: Pick<StoredBillingDocument, 'document'>, locale: Locale): Fact[] {
  const { document } = stored;
  const { labels } = locale;
  return [
    [labels.number, document.number ?? labels.draft],
    [labels.date, locale.date(document.document_date)],
    [labels.serviceDate, locale.date(document.service_date)],
    [
      document.document_type === 'quote' ? labels.validUntil : labels.dueDate,
      locale.date(document.document_type === 'quote' ? document.valid_until : document.due_date),
    ],
    [labels.buyerReference, document.buyer_reference ?? document.counterparty.buyer_reference ?? null],
    [labels.orderReference, document.order_reference],
    [labels.vatId, document.customer_tax_id],
  ];
}

/**
 * The issuer top right, the sender line and the recipient's address window left, the facts right
 * (the document's own unless a letter about it, such as a reminder, states others).
 */
export function drawHeader(
  pdf: Pdf,
  stored: Pick<StoredBillingDocument, 'document'>,
  locale: Locale,
  facts: readonly Fact[] = documentFacts(stored, locale),
): void {
  const { document } = stored;
  const { issuer, counterparty } = document;
  const { labels } = locale;
  const right = PAGE.margin + CONTENT_WIDTH / 2 + 20;
  const rightWidth = CONTENT_WIDTH / 2 - 20;

  pdf
    .fillColor(COLOR.text)
    .font(FONT.bold)
    .fontSize(13)
    .text(issuer.issuer_name ?? '', right, PAGE.margin, {
      width: rightWidth,
    });
  pdf.font(FONT.regular).fontSize(8.5).fillColor(COLOR.muted);
  const issuerLines = [
    issuer.issuer_address_line1,
    issuer.issuer_address_line2,
    joinNonEmpty([issuer.issuer_postal_code, issuer.issuer_city], ' '),
    issuer.issuer_country,
    issuer.issuer_email,
    issuer.issuer_phone,
    issuer.issuer_website,
    issuer.issuer_vat_id ? `${labels.vatId} ${issuer.issuer_vat_id}` : null,
  ];
  pdf.text(joinNonEmpty(issuerLines, '\n'), right, pdf.y + 2, { width: rightWidth });

  // The address window of a DIN 5008 envelope: sender line, then the recipient.
  const windowTop = 140;
  const sender =
    issuer.sender_line ??
    joinNonEmpty(
      [
        issuer.issuer_name,
        issuer.issuer_address_line1,
        joinNonEmpty([issuer.issuer_postal_code, issuer.issuer_city], ' '),
      ],
      ' · ',
    );
  pdf
    .fontSize(7)
    .fillColor(COLOR.muted)
    .text(sender, PAGE.margin, windowTop, { width: 250, lineBreak: false });
  const recipient = [
    counterparty.legal_name ?? counterparty.name ?? document.counterparty_name,
    counterparty.legal_name && counterparty.name !== counterparty.legal_name ? counterparty.name : null,
    counterparty.address_line1,
    counterparty.address_line2,
    joinNonEmpty([counterparty.postal_code, counterparty.city], ' '),
    counterparty.country_code && counterparty.country_code !== issuer.issuer_country
      ? counterparty.country_code
      : null,
  ];
  pdf
    .fontSize(10)
    .fillColor(COLOR.text)
    .text(joinNonEmpty(recipient, '\n'), PAGE.margin, windowTop + 14, { width: 250 });
  const recipientBottom = pdf.y;

  let y = windowTop + 14;
  for (const [label, value] of facts) {
    if (!value) continue;
    pdf.font(FONT.regular).fontSize(9).fillColor(COLOR.muted).text(label, right, y, { width: 90 });
    pdf.fillColor(COLOR.text).text(value, right + 90, y, { width: rightWidth - 90 });
    y = pdf.y + 2;
  }
  pdf.y = Math.max(recipientBottom, y) + 30;
}

/** The title line: what the document is and its number, then its own title. */
export function drawTitle(pdf: Pdf, stored: StoredBillingDocument, locale: Locale): void {
  const { document } = stored;
  const kind = locale.labels[document.document_type];
  pdf.font(FONT.bold).fontSize(16).fillColor(COLOR.text);
  pdf.text(
    document.number ? `${kind} ${document.number}` : `${kind} (${locale.labels.draft})`,
    PAGE.margin,
    pdf.y,
    {
      width: CONTENT_WIDTH,
    },
  );
  if (document.title) {
    pdf.font(FONT.regular).fontSize(10).text(document.title, { width: CONTENT_WIDTH });
  }
  pdf.moveDown(1);
}

/** Column x offsets and widths of the lines table (points, from the left margin). */
const COLUMNS = {
  position: { x: 0, width: 22, align: 'left' },
  description: { x: 24, width: 180, align: 'left' },
  quantity: { x: 206, width: 50, align: 'right' },
  unitPrice: { x: 258, width: 70, align: 'right' },
  discount: { x: 330, width: 52, align: 'right' },
  vat: { x: 384, width: 38, align: 'right' },
  net: { x: 424, width: 71, align: 'right' },
} as const;

type Column = keyof typeof COLUMNS;

function cell(pdf: Pdf, column: Column, text: string, y: number): void {
  const { x, width, align } = COLUMNS[column];
  pdf.text(text, PAGE.margin + x, y, { width, align });
}

function drawTableHeader(pdf: Pdf, locale: Locale): void {
  const { labels } = locale;
  const y = pdf.y;
  pdf.font(FONT.bold).fontSize(8).fillColor(COLOR.muted);
  cell(pdf, 'position', labels.position, y);
  cell(pdf, 'description', labels.description, y);
  cell(pdf, 'quantity', labels.quantity, y);
  cell(pdf, 'unitPrice', labels.unitPrice, y);
  cell(pdf, 'discount', labels.discount, y);
  cell(pdf, 'vat', labels.vat, y);
  cell(pdf, 'net', labels.net, y);
  const bottom = y + 12;
  pdf
    .moveTo(PAGE.margin, bottom)
    .lineTo(PAGE.margin + CONTENT_WIDTH, bottom)
    .strokeColor(COLOR.rule)
    .lineWidth(0.5)
    .stroke();
  pdf.y = bottom + 4;
}

function lineHeight(pdf: Pdf, line: BillingLineRow): number {
  const width = COLUMNS.description.width;
  const name = heightOf(pdf, line.item_name, width, FONT.bold, 9);
  const description = line.description ? heightOf(pdf, line.description, width, FONT.regular, 8) : 0;
  return Math.max(name + description, 12) + 6;
}

/**
 * The lines, each kept whole on one page: a line that would run into the footer starts the next
 * page, which repeats the table header.
 */
export function drawLines(pdf: Pdf, stored: StoredBillingDocument, locale: Locale): void {
  const { document, lines } = stored;
  drawTableHeader(pdf, locale);
  for (const line of lines) {
    const height = lineHeight(pdf, line);
    if (keepTogether(pdf, height)) drawTableHeader(pdf, locale);
    const y = pdf.y;
    pdf.font(FONT.regular).fontSize(9).fillColor(COLOR.text);
    cell(pdf, 'position', String(line.position + 1), y);
    const unit = unitName(line.unit, locale.language);
    cell(pdf, 'quantity', `${locale.number(line.quantity)}${unit ? ` ${unit}` : ''}`, y);
    cell(pdf, 'unitPrice', locale.money(line.unit_price, document.currency), y);
    cell(
      pdf,
      'discount',
      Number(line.discount_amount) !== 0 ? locale.money(line.discount_amount, document.currency) : '',
      y,
    );
    cell(pdf, 'vat', line.tax_category === 'S' ? locale.percent(line.tax_percent) : line.tax_category, y);
    cell(pdf, 'net', locale.money(line.line_total, document.currency), y);
    pdf.font(FONT.bold).fontSize(9);
    cell(pdf, 'description', line.item_name, y);
    if (line.description) {
      pdf.font(FONT.regular).fontSize(8).fillColor(COLOR.muted);
      pdf.text(line.description, PAGE.margin + COLUMNS.description.x, pdf.y, {
        width: COLUMNS.description.width,
      });
    }
    pdf.y = y + height;
  }
  pdf
    .moveTo(PAGE.margin, pdf.y)
    .lineTo(PAGE.margin + CONTENT_WIDTH, pdf.y)
    .strokeColor(COLOR.rule)
    .lineWidth(0.5)
    .stroke();
  pdf.y += 8;
}
