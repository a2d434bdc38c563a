import { CapabilityError, defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { type BookingRow, bookingView } from './bookings.js';
import { findCalendar, resolveCalendar } from './calendars.js';
import { calendarContract, invalid, isOverlap, required, slotTaken } from './common.js';
import { ICS_DOMAIN } from './ics.js';
import { stageBookingMail } from './messages.js';
import { bookingCancel, bookingFind, bookingList, bookingUpdate } from './sql.js';

/** Params of `calendar.booking.manage`. */
export interface BookingManageInput {
  readonly operation: 'list' | 'update' | 'cancel';
  readonly booking_id?: string;
  readonly calendar_id?: string | null;
  readonly from?: string;
  readonly to?: string;
  readonly include_cancelled?: boolean;
  readonly title?: string;
  readonly notes?: string | null;
  readonly start_at?: string;
  readonly end_at?: string;
  readonly status?: 'confirmed' | 'cancelled' | 'no_show';
  readonly cancelled_reason?: string;
}

/**
 * `calendar.booking.manage`: list bookings (by time range, calendar, with or without cancelled ones),
 * update one (title, notes, no_show, or a move to another time: the database refuses a time that
 * overlaps another booking exactly as it does for the booking page), or cancel one (its time frees at
 * once). A move or a cancellation mails the booker and the organization with the updated `.ics`.
 */
export const calendarBookingManageHandler = defineCapabilityHandler<BookingManageInput, unknown>({
  contract: calendarContract('calendar.booking.manage'),
  async handle(input, ctx) {
    if (input.operation === 'list') {
      const calendar = input.calendar_id ? await resolveCalendar(ctx, input.calendar_id) : undefined;
      const { rows } = await runStatement<BookingRow>(ctx.sql, bookingList, [
        ctx.organizationId,
        calendar?.id ?? null,
        input.from ?? null,
        input.to ?? null,
        input.include_cancelled ?? false,
      ]);
      return { operation: 'list', bookings: rows.map(bookingView), count: rows.length };
    }
    const id = required(input.booking_id, 'booking_id', input.operation);
    const { rows: found } = await runStatement<BookingRow>(ctx.sql, bookingFind, [ctx.organizationId, id]);
    const current = found[0];
    if (!current) throw new CapabilityError('not_found', 'No booking with that booking_id.');
    if (current.status === 'cancelled') throw new CapabilityError('conflict', 'The booking is cancelled.');
    const calendar = await findCalendar(ctx.sql, ctx.organizationId, current.calendar_id);
    const mailOptions = { locale: calendar.locale, calendarZone: calendar.timezone, domain: ICS_DOMAIN };

    if (input.operation === 'cancel' || input.status === 'cancelled') {
      const { rows } = await runStatement<BookingRow>(ctx.sql, bookingCancel, [
        ctx.organizationId,
        id,
        input.cancelled_reason ?? null,
        ctx.now,
      ]);
      const booking = rows[0] as BookingRow;
      await stageBookingMail(ctx.mail, booking, 'cancelled', mailOptions);
      return { operation: input.operation, booking: bookingView(booking) };
    }

    const moving = input.start_at !== undefined || input.end_at !== undefined;
    const start = input.start_at ? new Date(input.start_at) : current.start_at;
    const end = input.end_at
      ? new Date(input.end_at)
      : new Date(start.getTime() + (current.end_at.getTime() - current.start_at.getTime()));
    if (end.getTime() <= start.getTime()) invalid('end_at', 'end_at must be after start_at.');
    if (moving && start.getTime() < ctx.now.getTime())
      invalid('start_at', 'A booking cannot move into the past.');
    const before = current.start_at.getTime() - current.blocked_from.getTime();
    const after = current.blocked_until.getTime() - current.end_at.getTime();
    try {
      const { rows } = await runStatement<BookingRow>(ctx.sql, bookingUpdate, [
        ctx.organizationId,
        id,
        input.title ?? current.title,
        input.notes === undefined ? current.notes : input.notes,
        input.status ?? current.status,
        start,
        end,
        new Date(start.getTime() - before),
        new Date(end.getTime() + after),
        moving ? 1 : 0,
        ctx.now,
      ]);
      const booking = rows[0] as BookingRow;
      if (moving) await stageBookingMail(ctx.mail, booking, 'moved', mailOptions);
      return { operation: 'update', booking: bookingView(booking) };
    } catch (error) {
      if (isOverlap(error)) throw slotTaken();
      throw error;
    }
  },
});
