import icalGenerator, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { BookingRow } from './bookings.js';

/**
 * The right-hand side of every booking's UID. Fixed, not PUBLIC_BASE_URL's host: a handler (cancel,
 * move) does not know that URL, and the UID must be the same in every mail of one booking.
 */
export const ICS_DOMAIN = 'agent-gateway.calendar';

/**
 * The booking as an RFC 5545 calendar file. One UID per booking, SEQUENCE counting its changes, so a
 * reschedule (REQUEST, higher sequence) or a cancellation (CANCEL) updates the copy a mail client
 * already imported instead of adding a second event.
 */
export function bookingIcs(booking: BookingRow, method: 'request' | 'cancel', domain: string): Uint8Array {
  const calendar = icalGenerator({
    prodId: { company: 'Agent Gateway', product: 'calendar', language: 'EN' },
    method: method === 'cancel' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  calendar.createEvent({
    id: `${booking.id}@${domain}`,
    sequence: booking.sequence,
    start: booking.start_at,
    end: booking.end_at,
    stamp: booking.updated_at,
    summary: booking.title,
    description: booking.notes ?? undefined,
    location: booking.location ?? booking.meeting_url ?? undefined,
    url: booking.meeting_url ?? undefined,
    status: method === 'cancel' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: booking.organizer_email
      ? { name: booking.organizer_name, email: booking.organizer_email }
      : undefined,
    attendees: [{ name: booking.booker_name, email: booking.booker_email, rsvp: false }],
  });
  return new TextEncoder().encode(calendar.toString());
}
