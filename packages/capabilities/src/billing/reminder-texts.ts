import { formatAmount } from './money.js';
import { localeOf } from './outputs/pdf/labels.js';

/** The dunning levels, in the order an invoice goes through them. */
export const REMINDER_LEVELS = [
  'payment_reminder',
  'first_reminder',
  'second_reminder',
  'final_notice',
] as const;

export type ReminderLevel = (typeof REMINDER_LEVELS)[number];

const LEVEL_NAMES: Record<'de' | 'en', Record<ReminderLevel, string>> = {
  de: {
    payment_reminder: 'Zahlungserinnerung',
    first_reminder: '1. Mahnung',
    second_reminder: '2. Mahnung',
    final_notice: 'Letzte Mahnung',
  },
  en: {
    payment_reminder: 'Payment reminder',
    first_reminder: 'First reminder',
    second_reminder: 'Second reminder',
    final_notice: 'Final notice',
  },
};

/** What a reminder states about its invoice. */
export interface ReminderFacts {
  readonly level: ReminderLevel;
  readonly number: string;
  readonly documentDate: string;
  readonly dueDate: string;
  readonly balance: string;
  readonly currency: string;
  readonly fee: string | null;
  readonly interest: string | null;
}

/** The language of an issuer's locale: German for `de…`, English otherwise (as the PDF). */
export function languageOf(locale: string | null | undefined): 'de' | 'en' {
  return localeOf(locale).language;
}

/** The level's name in `language` (`1. Mahnung`, `First reminder`): the reminder's title. */
export function levelName(level: ReminderLevel, language: 'de' | 'en'): string {
  return LEVEL_NAMES[language][level];
}

/**
 * Subject and body of a reminder in the issuer's language: German for a `de` profile (amounts and
 * dates in German notation), English otherwise.
 */
export function reminderTexts(facts: ReminderFacts, language: 'de' | 'en') {
  const title = levelName(facts.level, language);
  if (language === 'de') {
    const de = localeOf('de-DE');
    const money = (value: string) => de.money(value, facts.currency);
    const extras = [
      facts.fee === null ? null : `einer Mahngebühr von ${money(facts.fee)}`,
      facts.interest === null ? null : `Verzugszinsen von ${money(facts.interest)}`,
    ].filter((text) => text !== null);
    return {
      subject: `${title}: Rechnung ${facts.number}`,
      body:
        `Unsere Rechnung ${facts.number} vom ${de.date(facts.documentDate)} war am ${de.date(facts.dueDate)} fällig. ` +
        `Offen sind noch ${money(facts.balance)}${extras.length > 0 ? ` zuzüglich ${extras.join(' und ')}` : ''}. ` +
        'Bitte überweisen Sie den Betrag umgehend. Sollten Sie inzwischen gezahlt haben, betrachten Sie dieses Schreiben als gegenstandslos.',
    };
  }
  const amount = (value: string) => `${formatAmount(value, facts.currency)} ${facts.currency}`;
  const extras = [
    facts.fee === null ? null : `a reminder fee of ${amount(facts.fee)}`,
    facts.interest === null ? null : `interest of ${amount(facts.interest)}`,
  ].filter((text) => text !== null);
  return {
    subject: `${title}: invoice ${facts.number}`,
    body:
      `Invoice ${facts.number} of ${facts.documentDate} was due on ${facts.dueDate}. ` +
      `${amount(facts.balance)} are still open${extras.length > 0 ? `, plus ${extras.join(' and ')}` : ''}.`,
  };
}

/** Header text never carries a line break (a subject is one header line). */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').trim();

/**
 * The mail that sends a reminder, in its language: the reminder's subject, a greeting, its text, a line
 * naming the attached PDF, the issuer's name under the closing.
 */
export function reminderMail(
  reminder: { subject: string; body: string },
  issuer: string,
  language: 'de' | 'en',
) {
  const lines =
    language === 'de'
      ? [
          'Guten Tag,',
          '',
          reminder.body,
          '',
          'Das Schreiben finden Sie als PDF im Anhang.',
          '',
          'Mit freundlichen Grüßen',
        ]
      : ['Hello,', '', reminder.body, '', 'Please find the letter attached as a PDF.', '', 'Kind regards'];
  if (issuer) lines.push(issuer);
  return { subject: oneLine(reminder.subject), text: `${lines.join('\n')}\n` };
}
