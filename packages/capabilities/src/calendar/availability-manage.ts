import { defineCapabilityHandler } from '../define.js';
import type { Sql } from '../sql.js';
import { runStatement } from '../sql.js';
import { resolveCalendar } from './calendars.js';
import { calendarContract, checkTimeZone, invalid, required } from './common.js';
import { type AvailabilityRule, minutesOfDay } from './slots.js';
import { availabilityClear, availabilityInsert, availabilityList } from './sql.js';

/** Params of `calendar.availability.manage`. */
export interface AvailabilityManageInput {
  readonly operation: 'get' | 'replace';
  readonly calendar_id?: string | null;
  readonly rules?: ReadonlyArray<{
    readonly day_of_week: number;
    readonly start_time: string;
    readonly end_time: string;
    readonly timezone?: string;
  }>;
}

interface RuleRow {
  readonly day_of_week: number;
  readonly start_time: string;
  readonly end_time: string;
  readonly timezone: string;
}

/** `HH:MM` of a `time` column (seconds only when they are not zero). */
function clock(value: string): string {
  return value.endsWith(':00') ? value.slice(0, 5) : value;
}

/** The weekly rules of a calendar in their stored order. */
export async function loadRules(
  sql: Sql,
  organizationId: string,
  calendarId: string,
): Promise<AvailabilityRule[]> {
  const { rows } = await runStatement<RuleRow>(sql, availabilityList, [organizationId, calendarId]);
  return rows.map((row) => ({ ...row, start_time: clock(row.start_time), end_time: clock(row.end_time) }));
}

function checkRules(rules: NonNullable<AvailabilityManageInput['rules']>): void {
  rules.forEach((rule, index) => {
    if (rule.timezone !== undefined) checkTimeZone(rule.timezone, `rules/${index}/timezone`);
    if (minutesOfDay(rule.start_time) >= minutesOfDay(rule.end_time)) {
      invalid(
        `rules/${index}/end_time`,
        'end_time must be after start_time on the same day (split a rule that runs past midnight in two).',
      );
    }
  });
}

/**
 * `calendar.availability.manage`: get or replace a calendar's weekly rules. Rules are wall-clock times
 * in their own zone (the calendar's zone when a rule names none); day_of_week 0 is Sunday. `replace`
 * with an empty list closes the calendar.
 */
export const calendarAvailabilityManageHandler = defineCapabilityHandler<AvailabilityManageInput, unknown>({
  contract: calendarContract('calendar.availability.manage'),
  async handle(input, ctx) {
    const calendar = await resolveCalendar(ctx, input.calendar_id);
    if (input.operation === 'replace') {
      const rules = required(input.rules, 'rules', 'replace');
      checkRules(rules);
      await runStatement(ctx.sql, availabilityClear, [ctx.organizationId, calendar.id]);
      for (const [position, rule] of rules.entries()) {
        await runStatement(ctx.sql, availabilityInsert, [
          ctx.ids.uuid(),
          ctx.organizationId,
          calendar.id,
          rule.day_of_week,
          rule.start_time,
          rule.end_time,
          rule.timezone ?? calendar.timezone,
          position,
        ]);
      }
    }
    const stored = await loadRules(ctx.sql, ctx.organizationId, calendar.id);
    return { operation: input.operation, calendar_id: calendar.id, rules: stored, count: stored.length };
  },
});
