import { minorUnits, money } from '../../money.js';
import { levelName } from '../../reminder-texts.js';
import type { ReminderLetter } from '../reminder-letter.js';
import { drawHeader } from './blocks.js';
import { drawPageFurniture, openPdf } from './index.js';
import { localeOf } from './labels.js';
import { COLOR, CONTENT_WIDTH, FONT, keepTogether, PAGE, type Pdf } from './page.js';
import { type AmountRow, bankDetails, drawAmountRows, drawParagraph } from './summary.js';

/** The words of a reminder letter beyond a document's. */
const WORDS = {
  de: {
    reminderDate: 'Datum',
    invoice: 'Rechnung',
    invoiceDate: 'Rechnungsdatum',
    dueSince: 'Fällig seit',
    about: (number: string, date: string) => `zu Rechnung ${number} vom ${date}`,
    open: (number: string) => `Offener Betrag aus Rechnung ${number}`,
    fee: 'Mahngebühr',
    interest: 'Verzugszinsen',
    total: 'Zu zahlender Betrag',
    payBy: (date: string) => `Bitte zahlen Sie den Betrag bis zum ${date}.`,
  },
  en: {
    reminderDate: 'Date',
    invoice: 'Invoice',
    invoiceDate: 'Invoice date',
    dueSince: 'Due since',
    about: (number: string, date: string) => `regarding invoice ${number} of ${date}`,
    open: (number: string) => `Amount open on invoice ${number}`,
    fee: 'Reminder fee',
    interest: 'Interest',
    total: 'Amount to pay',
    payBy: (date: string) => `Please pay the amount by ${date}.`,
  },
} as const;

/** The amounts block: what is open, fee and interest when stated, the total to pay; kept whole. */
function drawAmounts(pdf: Pdf, rows: readonly AmountRow[]): void {
  keepTogether(pdf, rows.length * 15 + 16);
  drawAmountRows(pdf, rows, 320, 9.5);
  pdf.y += 12;
}

/**
 * A reminder as a PDF/A-3b letter in its language: the issuer and the customer's address window as on
 * the invoice, the reminder's facts, the level as title, the reminder text, the amounts (open balance,
 * fee, interest, total), the pay-by date and the invoice's bank account, footer and page numbers.
 * Dates come from the reminder, not the clock, so the same reminder renders the same bytes.
 */
export async function renderReminderPdf(letter: ReminderLetter): Promise<Buffer> {
  const { reminder, invoice, language } = letter;
  const { document } = invoice;
  const locale = localeOf(document.issuer.locale);
  const words = WORDS[language];
  const title = levelName(reminder.level, language);
  const number = document.number ?? '';
  const { pdf, done } = await openPdf({
    lang: locale.tag,
    title: `${title} ${number}`,
    author: document.issuer.issuer_name ?? '',
    date: new Date(reminder.createdAt),
  });
  drawHeader(pdf, invoice, locale, [
    [words.reminderDate, locale.date(reminder.reminderDate)],
    [words.invoice, number],
    [words.invoiceDate, locale.date(document.document_date)],
    [words.dueSince, locale.date(reminder.dueDate)],
    [locale.labels.buyerReference, document.buyer_reference ?? document.counterparty.buyer_reference ?? null],
  ]);

  pdf
    .font(FONT.bold)
    .fontSize(16)
    .fillColor(COLOR.text)
    .text(title, PAGE.margin, pdf.y, { width: CONTENT_WIDTH });
  pdf
    .font(FONT.regular)
    .fontSize(10)
    .text(words.about(number, locale.date(document.document_date) ?? ''), { width: CONTENT_WIDTH });
  pdf.moveDown(1);
  drawParagraph(pdf, reminder.body, 9.5);

  const amount = (value: string) => locale.money(value, reminder.currency);
  const rows: AmountRow[] = [[words.open(number), amount(reminder.balance)]];
  if (reminder.fee !== null && money(reminder.fee).gt(0)) rows.push([words.fee, amount(reminder.fee)]);
  if (reminder.interest !== null && money(reminder.interest).gt(0)) {
    rows.push([words.interest, amount(reminder.interest)]);
  }
  const total = money(reminder.balance)
    .plus(reminder.fee ?? 0)
    .plus(reminder.interest ?? 0)
    .toFixed(minorUnits(reminder.currency));
  rows.push([words.total, amount(total), true]);
  drawAmounts(pdf, rows);

  const payBy = locale.date(reminder.payBy) as string;
  const bank = document.bank_account;
  const text = bank ? bankDetails(bank, locale, payBy, number) : words.payBy(payBy);
  drawParagraph(pdf, text, 9.5, locale.labels.payment);
  drawPageFurniture(pdf, invoice, locale);
  pdf.end();
  return done;
}
