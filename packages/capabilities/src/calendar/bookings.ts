import type { Sql } from '../sql.js';
import { runStatement } from '../sql.js';
import { iso } from './common.js';
import { bookingBusy } from './sql.js';

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
  const { rows } = await runStatement<{ blocked_from: Date; blocked_until: Date }>(sql, bookingBusy, [
    organizationId,
    calendarId,
    from,
    until,
  ]);
  return rows.map((row) => ({ from: row.blocked_from, until: row.blocked_until }));
}
