import icalGenerator, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { BookingRow } from './bookings.js';

/**
 * The right-hand side of every booking's UID. Fixed, not PUBLIC_BASE_URL's host: a handler (cancel,
 * move) does not know that URL, and the UID must be the same in every mail of one booking.
 */
export const ICS_DOMAIN = 'agent-gateway.calendar';

/** Who reads the file: the booker's copy carries nothing the booker wrote (docs/calendar.md, "Caps"). */
export type IcsReader = 'booker' | 'organizer';

// C0 controls but tab and line breaks, DEL, C1: RFC 5545 TEXT has no place for them (tab stays).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
const TEXT_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
// Every control character, line breaks included.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
const CONTROL = /[\u0000-\u001F\u007F-\u009F]+/g;

/**
 * A parameter value (a CN): RFC 5545 allows no DQUOTE and no control character inside a quoted
 * parameter value and has no escape for them (ical-generator writes `\"`, which ends the quote for
 * every parser), so a `"` becomes `'` and controls a space. What is left cannot leave the quotes.
 */
export function icsParameter(value: string): string {
  return oneLine(value.replaceAll('"', "'"));
}

/** `value` on one line: each run of control characters (line breaks included) becomes one space. */
export function oneLine(value: string): string {
  return value.replace(CONTROL, ' ').trim();
}

/** A TEXT value: ical-generator escapes `\`, `;`, `,` and line breaks; other controls are dropped. */
export function icsText(value: string): string {
  return value.replace(TEXT_CONTROL, '');
}

/** A URI value is written as is: one with a space, a control or a quote is left out. */
function icsUri(value: string | null): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  return value && !/[\s\u0000-\u001F\u007F-\u009F"]/.test(value) ? value : undefined;
}

/**
 * The booking as an RFC 5545 calendar file. One UID per booking, SEQUENCE counting its changes, so a
 * reschedule (REQUEST, higher sequence) or a cancellation (CANCEL) updates the copy a mail client
 * already imported instead of adding a second event. The booker's copy has no DESCRIPTION (the notes
 * hold the booker's note) and no CN on the attendee (the booker typed the name): a stranger's text
 * never reaches the address the stranger gave.
 */
export function bookingIcs(
  booking: BookingRow,
  method: 'request' | 'cancel',
  domain: string,
  reader: IcsReader = 'organizer',
): Uint8Array {
  const calendar = icalGenerator({
    prodId: { company: 'Agent Gateway', product: 'calendar', language: 'EN' },
    method: method === 'cancel' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  const organizerName = icsParameter(booking.organizer_name);
  const bookerName = reader === 'organizer' ? icsParameter(booking.booker_name) : '';
  const location = booking.location ?? booking.meeting_url;
  calendar.createEvent({
    id: `${booking.id}@${domain}`,
    sequence: booking.sequence,
    start: booking.start_at,
    end: booking.end_at,
    stamp: booking.updated_at,
    summary: icsText(booking.title),
    description: reader === 'organizer' && booking.notes ? icsText(booking.notes) : undefined,
    location: location ? icsText(location) : undefined,
    url: icsUri(booking.meeting_url),
    status: method === 'cancel' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: booking.organizer_email
      ? { name: organizerName || booking.organizer_email, email: booking.organizer_email }
      : undefined,
    attendees: [{ ...(bookerName ? { name: bookerName } : {}), email: booking.booker_email, rsvp: false }],
  });
  return new TextEncoder().encode(calendar.toString());
}
