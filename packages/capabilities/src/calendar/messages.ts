import { DateTime } from 'luxon';
import type { DomainMail, MailPort } from '../mail.js';
import type { BookingRow } from './bookings.js';
import { isMailAddress } from './common.js';
import { bookingIcs, type IcsReader, oneLine } from './ics.js';

export type Locale = 'en' | 'de';

/** The booking page's and the mails' words, per locale. */
export const TEXT = {
  en: {
    pick: 'Pick a time',
    showIn: 'Times shown in',
    change: 'Change',
    name: 'Your name',
    email: 'Email',
    phone: 'Phone',
    note: 'Note (optional)',
    book: 'Book',
    noSlots: 'No free times in this period.',
    later: 'Later times',
    meeting: 'Meeting',
    prevMonth: 'Previous month',
    nextMonth: 'Next month',
    freeOne: '1 free time',
    freeMany: '{n} free times',
    noneFree: 'no free times',
    monthEmpty: 'No free times in this month.',
    pickDay: 'Pick a day with free times.',
    loading: 'Loading free times…',
    loadFailed: 'The free times could not be loaded. Please reload the page.',
    confirmed: 'Booked',
    confirmedLead: 'Your booking is confirmed. A confirmation with a calendar file is on its way to',
    taken: 'That time was just taken. Please pick another.',
    unavailable: 'This booking link is not available.',
    emailBound: 'This link can only be booked with the email address it was sent to.',
    linkBusy: 'This link has taken as many bookings as it takes in an hour. Please try again in {n} minutes.',
    organizationBusy:
      'This organization has taken as many bookings as it takes in an hour. Please try again in {n} minutes.',
    badTime: 'That time is out of range. Please pick a time from the booking page.',
    back: 'Back to the booking page',
    invalid: 'Please check the form.',
    with: 'with',
    subjectConfirmed: 'Confirmed',
    subjectCancelled: 'Cancelled',
    subjectMoved: 'Moved',
    bodyConfirmed: 'Your booking is confirmed.',
    bodyCancelled: 'This booking was cancelled.',
    bodyMoved: 'This booking has a new time.',
    reason: 'Reason',
    when: 'When',
    where: 'Where',
  },
  de: {
    pick: 'Termin wählen',
    showIn: 'Zeiten in',
    change: 'Ändern',
    name: 'Ihr Name',
    email: 'E-Mail',
    phone: 'Telefon',
    note: 'Notiz (optional)',
    book: 'Buchen',
    noSlots: 'Keine freien Termine in diesem Zeitraum.',
    later: 'Spätere Termine',
    meeting: 'Termin',
    prevMonth: 'Vorheriger Monat',
    nextMonth: 'Nächster Monat',
    freeOne: '1 freier Termin',
    freeMany: '{n} freie Termine',
    noneFree: 'keine freien Termine',
    monthEmpty: 'Keine freien Termine in diesem Monat.',
    pickDay: 'Wählen Sie einen Tag mit freien Terminen.',
    loading: 'Freie Termine werden geladen …',
    loadFailed: 'Die freien Termine konnten nicht geladen werden. Bitte laden Sie die Seite neu.',
    confirmed: 'Gebucht',
    confirmedLead: 'Ihr Termin ist bestätigt. Eine Bestätigung mit Kalenderdatei geht an',
    taken: 'Dieser Termin wurde gerade vergeben. Bitte wählen Sie einen anderen.',
    unavailable: 'Dieser Buchungslink ist nicht verfügbar.',
    emailBound: 'Dieser Link kann nur mit der E-Mail-Adresse gebucht werden, an die er ging.',
    linkBusy:
      'Über diesen Link wurden in dieser Stunde so viele Termine gebucht, wie er annimmt. Bitte versuchen Sie es in {n} Minuten erneut.',
    organizationBusy:
      'Bei dieser Organisation wurden in dieser Stunde so viele Termine gebucht, wie sie annimmt. Bitte versuchen Sie es in {n} Minuten erneut.',
    badTime: 'Diese Zeit liegt außerhalb des Bereichs. Bitte wählen Sie eine Zeit auf der Buchungsseite.',
    back: 'Zurück zur Buchungsseite',
    invalid: 'Bitte prüfen Sie das Formular.',
    with: 'mit',
    subjectConfirmed: 'Bestätigt',
    subjectCancelled: 'Abgesagt',
    subjectMoved: 'Verschoben',
    bodyConfirmed: 'Ihr Termin ist bestätigt.',
    bodyCancelled: 'Dieser Termin wurde abgesagt.',
    bodyMoved: 'Dieser Termin hat eine neue Zeit.',
    reason: 'Grund',
    when: 'Wann',
    where: 'Wo',
  },
} as const;

/** A booking's time as the reader reads it: their zone, their language. */
export function formatWhen(booking: BookingRow, zone: string, locale: Locale): string {
  const start = DateTime.fromJSDate(booking.start_at, { zone }).setLocale(locale);
  const end = DateTime.fromJSDate(booking.end_at, { zone }).setLocale(locale);
  return `${start.toLocaleString(DateTime.DATETIME_FULL)} – ${end.toLocaleString(DateTime.TIME_SIMPLE)} (${zone})`;
}

/**
 * Stages the mail of a booking event to the booker (in their zone) and to the organization (in the
 * calendar's zone), each with the `.ics`. The booker's mail carries nothing the booker wrote (no name,
 * no note: a booking page must not carry a stranger's text to the address the stranger typed); the
 * organizer's names the booker and its `.ics` holds the note. A subject is one line whatever a stored
 * name holds (a name saved before names were checked may hold a line break).
 */
export async function stageBookingMail(
  mail: MailPort,
  booking: BookingRow,
  kind: 'confirmed' | 'cancelled' | 'moved',
  options: { locale: Locale; calendarZone: string; domain: string },
): Promise<void> {
  const text = TEXT[options.locale];
  const subject = {
    confirmed: text.subjectConfirmed,
    cancelled: text.subjectCancelled,
    moved: text.subjectMoved,
  }[kind];
  const lead = { confirmed: text.bodyConfirmed, cancelled: text.bodyCancelled, moved: text.bodyMoved }[kind];
  const method = kind === 'cancelled' ? 'CANCEL' : 'REQUEST';
  const build = (to: string, zone: string, counterpart: string, reader: IcsReader): DomainMail => ({
    to,
    subject: oneLine(`${subject}: ${booking.title} ${text.with} ${counterpart}`),
    text: [
      lead,
      '',
      `${text.when}: ${formatWhen(booking, zone, options.locale)}`,
      booking.location || booking.meeting_url
        ? `${text.where}: ${booking.location ?? booking.meeting_url}`
        : '',
      kind === 'cancelled' && booking.cancelled_reason ? `${text.reason}: ${booking.cancelled_reason}` : '',
    ]
      .filter((line, index) => line !== '' || index === 1)
      .join('\n'),
    attachments: [
      {
        filename: 'invite.ics',
        contentType: `text/calendar; method=${method}`,
        content: bookingIcs(booking, kind === 'cancelled' ? 'cancel' : 'request', options.domain, reader),
      },
    ],
  });
  await mail.stage(build(booking.booker_email, booking.booker_timezone, booking.organizer_name, 'booker'));
  if (booking.organizer_email && isMailAddress(booking.organizer_email)) {
    await mail.stage(build(booking.organizer_email, options.calendarZone, booking.booker_name, 'organizer'));
  }
}
