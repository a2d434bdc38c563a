import type { Sql } from '../sql.js';
import { iso } from './common.js';

/** A booking row. */
export interface BookingRow {
  readonly id: string;
  readonly calendar_id: string;
  readonly link_id: string | null;
  readonly event_type_id: string | null;
  readonly title: string;
  readonly notes: string | null;
  readonly booker_name: string;
  readonly booker_email: string;
  readonly booker_phone: string | null;
  readonly booker_timezone: string;
  readonly organizer_name: string;
  readonly organizer_email: string | null;
  readonly location: string | null;
  readonly meeting_url: string | null;
  readonly start_at: Date;
  readonly end_at: Date;
  readonly blocked_from: Date;
  readonly blocked_until: Date;
  readonly status: 'confirmed' | 'cancelled' | 'no_show';
  readonly sequence: number;
  readonly cancelled_reason: string | null;
  readonly cancelled_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export const BOOKING_COLUMNS = `id, calendar_id, link_id, event_type_id, title, notes, booker_name, booker_email, booker_phone,
  booker_timezone, organizer_name, organizer_email, location, meeting_url, start_at, end_at, blocked_from,
  blocked_until, status, sequence, cancelled_reason, cancelled_at, created_at, updated_at`;

/** A booking as the capabilities answer it. */
export function bookingView(row: BookingRow) {
  const { blocked_from, blocked_until, ...rest } = row;
  return {
    ...rest,
    start_at: iso(row.start_at),
    end_at: iso(row.end_at),
    cancelled_at: iso(row.cancelled_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** What a calendar has taken between `from` and `until` (bookings not cancelled, buffers included). */
export async function busyRanges(
  sql: Sql,
  organizationId: string,
  calendarId: string,
  from: Date,
  until: Date,
): Promise<Array<{ from: Date; until: Date }>> {
  const { rows } = await sql.query<{ blocked_from: Date; blocked_until: Date }>(
    `select blocked_from, blocked_until from calendar_bookings
where organization_id = $1 and calendar_id = $2 and status <> 'cancelled'
  and blocked_from < $4 and blocked_until > $3`,
    [organizationId, calendarId, from, until],
    { name: 'calendar.booking.busy' },
  );
  return rows.map((row) => ({ from: row.blocked_from, until: row.blocked_until }));
}
