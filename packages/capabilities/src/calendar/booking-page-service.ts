import { DateTime } from 'luxon';
import type { DomainHost } from '../domain.js';
import type { MailPort } from '../mail.js';
import type { Sql } from '../sql.js';
import { runStatement } from '../sql.js';
import { loadRules } from './availability-manage.js';
import { type BookingRow, busyRanges } from './bookings.js';
import { type CalendarRow, findCalendar } from './calendars.js';
import { type BookingCaps, type CapReached, checkBookingCaps } from './caps.js';
import { isMailAddress, isOverlap } from './common.js';
import { defaultEventType, type EventTypeRow, findEventTypes } from './event-types.js';
import { type LinkRow, linkBookable, secretMatches } from './links.js';
import { stageBookingMail } from './messages.js';
import { computeSlots, isTimeZone, type Slot } from './slots.js';
import { pageClaimLink, pageInsertBooking, pageLink, pageOwner } from './sql.js';

/** A link the page may show: resolved by slug (and secret), bookable now. */
export interface OpenLink {
  readonly link: LinkRow;
  readonly calendar: CalendarRow;
  readonly eventTypes: readonly EventTypeRow[];
}

/** Why a booking was refused (each maps to one HTTP answer). */
export type BookingRefusal =
  | { readonly kind: 'gone' }
  | ({ readonly kind: 'rate_limited' } & CapReached)
  | { readonly kind: 'slot_taken' }
  | { readonly kind: 'email_bound' }
  | { readonly kind: 'invalid'; readonly field: string; readonly message: string };

/** What a visitor sends to book. */
export interface BookingRequest {
  readonly start: string;
  readonly event_type_id?: string | undefined;
  readonly name: string;
  readonly email: string;
  readonly phone?: string | undefined;
  readonly note?: string | undefined;
  readonly timezone: string;
}

/**
 * The organization an unknown slug is looked up in: none has this id, so the tenant transaction and
 * the link query run as for a known slug and find nothing.
 */
export const NO_ORGANIZATION = '00000000-0000-4000-8000-000000000000';

// What a presented secret is compared with when there is no stored hash (an unknown slug, a public
// link): the comparison runs all the same and never matches (no secret hashes to 32 zero bytes).
const NO_SECRET_SHA256 = new Uint8Array(32);

/**
 * Reads the link `slug` as the tenant `organizationId` (found by {@link ownerOfSlug}, or
 * {@link NO_ORGANIZATION}). Unknown slug, wrong or missing secret, a secret on a public link,
 * revoked, booked, expired: all `undefined`, so a visitor learns nothing by probing; and a presented
 * secret is hashed and compared in every case, so an unknown slug costs what a wrong secret costs.
 */
export async function openLink(
  sql: Sql,
  organizationId: string,
  slug: string,
  secret: string | undefined,
  now: Date,
): Promise<OpenLink | undefined> {
  const { rows } = await runStatement<LinkRow>(sql, pageLink, [organizationId, slug]);
  const link = rows[0];
  const secretMatched =
    secret !== undefined && secretMatches(link?.secret_sha256 ?? NO_SECRET_SHA256, secret);
  if (!link || !linkBookable(link, now)) return undefined;
  if (link.access_mode === 'public' ? secret !== undefined : !secretMatched) return undefined;
  const calendar = await findCalendar(sql, organizationId, link.calendar_id);
  if (!calendar.is_active) return undefined;
  const chosen = (await findEventTypes(sql, organizationId, link.allowed_event_type_ids)).filter(
    (type) => type.status === 'active',
  );
  const eventTypes = chosen.length
    ? chosen
    : [defaultEventType(calendar.id, link.title, calendar.default_duration_minutes)];
  return { link, calendar, eventTypes };
}

/**
 * The organization that owns `slug` and the address of the installation owner who made the link (the
 * organization's copy of booking mail when the calendar names no notification address), or undefined.
 * Gateway role, before any tenant is known: slugs are unique across organizations.
 */
export async function ownerOfSlug(
  host: DomainHost,
  slug: string,
): Promise<{ organizationId: string; ownerEmail: string | null } | undefined> {
  const { rows } = await runStatement<{ organization_id: string; owner_email: string | null }>(
    host.sql,
    pageOwner,
    [slug],
  );
  const row = rows[0];
  return row ? { organizationId: row.organization_id, ownerEmail: row.owner_email } : undefined;
}

/** The event type a request names, or the only/first one the link offers. */
export function pickEventType(open: OpenLink, id: string | undefined | null): EventTypeRow | undefined {
  if (!id) return open.eventTypes[0];
  return open.eventTypes.find((type) => type.id === id);
}

/** Free slots of the link for `type` in [from, to). */
export async function linkSlots(
  sql: Sql,
  open: OpenLink,
  type: EventTypeRow,
  from: Date,
  to: Date,
  now: Date,
): Promise<{ slots: readonly Slot[]; more: boolean }> {
  const { link, calendar } = open;
  const rules = await loadRules(sql, link.organization_id, calendar.id);
  const margin = 86_400_000;
  const busy = await busyRanges(
    sql,
    link.organization_id,
    calendar.id,
    new Date(from.getTime() - margin),
    new Date(to.getTime() + margin),
  );
  return computeSlots({
    rules,
    busy,
    durationMinutes: type.duration_minutes,
    bufferBeforeMinutes: type.buffer_before_minutes,
    bufferAfterMinutes: type.buffer_after_minutes,
    now,
    minNoticeMinutes: link.min_notice_minutes,
    bookingWindowDays: link.booking_window_days,
    from,
    to,
    limit: link.slot_limit,
  });
}

/**
 * Books `request` on the link in the caller's tenant transaction: the slot must be one the link
 * offers now; a one-time link moves to `booked` in the same transaction (its row lock makes a second
 * booking of it wait, then find it booked); the exclusion constraint refuses an overlap whichever
 * process inserted first. Mail to both sides is staged in the same transaction. Before the slot is
 * looked at, the link's and the organization's hourly caps are counted (under the organization's lock).
 */
export async function bookOnLink(
  sql: Sql,
  mail: MailPort,
  open: OpenLink,
  request: BookingRequest,
  context: {
    now: Date;
    id: string;
    organizerEmail: string | null;
    icsDomain: string;
    caps: BookingCaps;
  },
): Promise<BookingRow | BookingRefusal> {
  const { link, calendar } = open;
  const { now } = context;
  const type = pickEventType(open, request.event_type_id);
  if (!type) return { kind: 'invalid', field: 'event_type_id', message: 'Not an event type of this link.' };
  if (!isTimeZone(request.timezone))
    return { kind: 'invalid', field: 'timezone', message: 'Unknown time zone.' };
  const start = DateTime.fromISO(request.start, { setZone: true });
  if (!start.isValid) return { kind: 'invalid', field: 'start', message: 'start must be an ISO 8601 time.' };
  if (
    link.email_binding_required &&
    request.email.trim().toLowerCase() !== link.recipient_email?.trim().toLowerCase()
  ) {
    return { kind: 'email_bound' };
  }
  const mails = context.organizerEmail && isMailAddress(context.organizerEmail) ? 2 : 1;
  const capped = await checkBookingCaps(sql, link, context.caps, now, mails);
  if (capped) return { kind: 'rate_limited', ...capped };
  const startAt = start.toJSDate();
  const offered = await linkSlots(sql, open, type, startAt, new Date(startAt.getTime() + 60_000), now);
  if (!offered.slots.some((slot) => slot.start.getTime() === startAt.getTime()))
    return { kind: 'slot_taken' };
  if (link.one_time_use) {
    const claimed = await runStatement(sql, pageClaimLink, [link.organization_id, link.id, now]);
    if (claimed.rowCount === 0) return { kind: 'gone' };
  }
  const endAt = new Date(startAt.getTime() + type.duration_minutes * 60_000);
  try {
    const { rows } = await runStatement<BookingRow>(sql, pageInsertBooking, [
      context.id,
      link.organization_id,
      calendar.id,
      link.id,
      type.id || null,
      type.id ? `${type.name}: ${link.title}` : link.title,
      request.note || null,
      request.name,
      request.email,
      request.phone || null,
      request.timezone,
      calendar.name,
      context.organizerEmail,
      type.location,
      type.meeting_url,
      startAt,
      endAt,
      new Date(startAt.getTime() - type.buffer_before_minutes * 60_000),
      new Date(endAt.getTime() + type.buffer_after_minutes * 60_000),
      now,
    ]);
    const booking = rows[0] as BookingRow;
    await stageBookingMail(mail, booking, 'confirmed', {
      locale: calendar.locale,
      calendarZone: calendar.timezone,
      domain: context.icsDomain,
    });
    return booking;
  } catch (error) {
    if (isOverlap(error)) throw new SlotTakenError();
    throw error;
  }
}

/**
 * Thrown out of the tenant transaction when the database refused an overlapping booking: the
 * transaction is aborted on PostgreSQL and must roll back (with the link claim) before answering.
 */
export class SlotTakenError extends Error {
  override readonly name = 'SlotTakenError';
}
