import type { Sql } from '../sql.js';
import { runStatement } from '../sql.js';
import type { LinkRow } from './links.js';
import { pageBookingLock, pageRecentBookings } from './sql.js';

/**
 * How much a public booking page may book and mail per hour, on top of the per-address limit: a
 * script with many addresses must not turn one link, or one organization's links, into a mail relay
 * (docs/calendar.md, "Caps"). A link's own `bookings_per_hour` replaces `linkBookingsPerHour`.
 */
export interface BookingCaps {
  readonly linkBookingsPerHour: number;
  readonly organizationBookingsPerHour: number;
  /** Mails public bookings stage: the booker's confirmation and the organizer's copy. */
  readonly organizationMailsPerHour: number;
}

export const DEFAULT_BOOKING_CAPS: BookingCaps = {
  linkBookingsPerHour: 20,
  organizationBookingsPerHour: 60,
  organizationMailsPerHour: 120,
};

const HOUR_MS = 3_600_000;

/** A cap that is full: which one, and when the oldest booking it counts leaves the hour. */
export interface CapReached {
  readonly scope: 'link' | 'organization';
  readonly retryAfterSeconds: number;
}

interface Recent {
  readonly organization_bookings: number;
  readonly link_bookings: number;
  readonly organization_mails: number;
  readonly organization_oldest: Date | string | null;
  readonly link_oldest: Date | string | null;
}

/**
 * Counts what the organization's public pages booked in the last hour, in the booking's own
 * transaction, after taking the organization's booking lock: the count and the insert that follows
 * are one step for every gateway process on the database, so the caps hold across processes.
 * `mails` is what this booking would stage (2 with an organizer copy).
 */
export async function checkBookingCaps(
  sql: Sql,
  link: LinkRow,
  caps: BookingCaps,
  now: Date,
  mails: number,
): Promise<CapReached | undefined> {
  await runStatement(sql, pageBookingLock, [link.organization_id]);
  const since = new Date(now.getTime() - HOUR_MS);
  const { rows } = await runStatement<Recent>(sql, pageRecentBookings, [
    link.organization_id,
    link.id,
    since,
  ]);
  const recent = rows[0] as Recent;
  const retryAfter = (oldest: Date | string | null) =>
    Math.max(1, Math.ceil((new Date(oldest ?? now).getTime() + HOUR_MS - now.getTime()) / 1000));
  if (recent.link_bookings >= (link.bookings_per_hour ?? caps.linkBookingsPerHour)) {
    return { scope: 'link', retryAfterSeconds: retryAfter(recent.link_oldest) };
  }
  if (
    recent.organization_bookings >= caps.organizationBookingsPerHour ||
    recent.organization_mails + mails > caps.organizationMailsPerHour
  ) {
    return { scope: 'organization', retryAfterSeconds: retryAfter(recent.organization_oldest) };
  }
  return undefined;
}
