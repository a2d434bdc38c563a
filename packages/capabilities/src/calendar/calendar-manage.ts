import { CapabilityError, defineCapabilityHandler } from '../define.js';
import { slugOf } from '../slug.js';
import { runStatement } from '../sql.js';
import { type CalendarRow, calendarView, findCalendar } from './calendars.js';
import { calendarContract, checkEmail, checkTimeZone, isUniqueViolation, required } from './common.js';
import { calendarInsert, calendarList, calendarUpdate } from './sql.js';

/** Params of `calendar.calendar.manage`. */
export interface CalendarManageInput {
  readonly operation: 'list' | 'create' | 'update';
  readonly calendar_id?: string;
  readonly name?: string;
  readonly slug?: string;
  readonly color?: string | null;
  readonly is_active?: boolean;
  readonly timezone?: string;
  readonly locale?: 'en' | 'de';
  readonly notification_email?: string | null;
  readonly default_duration_minutes?: number;
}

function checkFields(input: CalendarManageInput): void {
  if (input.timezone !== undefined) checkTimeZone(input.timezone, 'timezone');
  if (input.notification_email) checkEmail(input.notification_email, 'notification_email');
}

/**
 * `calendar.calendar.manage`: list, create or update calendars. The first calendar of an organization
 * becomes its default (the one `calendar_id: null` means elsewhere). Answers `{operation, calendar}`
 * for create and update and `{operation, calendars, count}` for list.
 */
export const calendarCalendarManageHandler = defineCapabilityHandler<CalendarManageInput, unknown>({
  contract: calendarContract('calendar.calendar.manage'),
  async check(input) {
    try {
      checkFields(input);
      return [];
    } catch (error) {
      if (error instanceof CapabilityError) return error.violations;
      throw error;
    }
  },
  async handle(input, ctx) {
    checkFields(input);
    if (input.operation === 'list') {
      const { rows } = await runStatement<CalendarRow>(ctx.sql, calendarList, [ctx.organizationId]);
      return { operation: 'list', calendars: rows.map(calendarView), count: rows.length };
    }
    try {
      if (input.operation === 'create') {
        const name = required(input.name, 'name', 'create');
        const { rows } = await runStatement<CalendarRow>(ctx.sql, calendarInsert, [
          ctx.ids.uuid(),
          ctx.organizationId,
          name,
          input.slug ?? slugOf(name, 96, 'calendar'),
          input.color ?? null,
          input.is_active ?? true,
          input.timezone ?? 'UTC',
          input.locale ?? 'en',
          input.notification_email ?? null,
          input.default_duration_minutes ?? 30,
          ctx.now,
        ]);
        return { operation: 'create', calendar: calendarView(rows[0] as CalendarRow) };
      }
      const id = required(input.calendar_id, 'calendar_id', 'update');
      const current = await findCalendar(ctx.sql, ctx.organizationId, id);
      const { rows } = await runStatement<CalendarRow>(ctx.sql, calendarUpdate, [
        ctx.organizationId,
        id,
        input.name ?? current.name,
        input.slug ?? current.slug,
        input.color === undefined ? current.color : input.color,
        input.is_active ?? current.is_active,
        input.timezone ?? current.timezone,
        input.locale ?? current.locale,
        input.notification_email === undefined ? current.notification_email : input.notification_email,
        input.default_duration_minutes ?? current.default_duration_minutes,
        ctx.now,
      ]);
      return { operation: 'update', calendar: calendarView(rows[0] as CalendarRow) };
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new CapabilityError('conflict', 'Another calendar of this organization has that slug.');
      }
      throw error;
    }
  },
});
