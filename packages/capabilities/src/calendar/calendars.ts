import { CapabilityError } from '../define.js';
import type { Sql } from '../sql.js';
import { runStatement } from '../sql.js';
import { type CalendarContext, iso } from './common.js';
import { calendarCreateDefault, calendarDefault, calendarFind, calendarFirst } from './sql.js';

/** A calendar row. */
export interface CalendarRow {
  readonly id: string;
  readonly organization_id: string;
  readonly name: string;
  readonly slug: string;
  readonly color: string | null;
  readonly is_active: boolean;
  readonly is_default: boolean;
  readonly timezone: string;
  readonly locale: 'en' | 'de';
  readonly notification_email: string | null;
  readonly default_duration_minutes: number;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** A calendar as the capabilities answer it. */
export function calendarView(row: CalendarRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    color: row.color,
    is_active: row.is_active,
    is_default: row.is_default,
    timezone: row.timezone,
    locale: row.locale,
    notification_email: row.notification_email,
    default_duration_minutes: row.default_duration_minutes,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** The calendar `id` of this organization, or not_found. */
export async function findCalendar(sql: Sql, organizationId: string, id: string): Promise<CalendarRow> {
  const { rows } = await runStatement<CalendarRow>(sql, calendarFind, [organizationId, id]);
  const row = rows[0];
  if (!row) throw new CapabilityError('not_found', 'No calendar with that calendar_id.');
  return row;
}

/**
 * The calendar a capability works on: `calendar_id` when given, else the organization's default one,
 * made on first use ("Calendar", slug `default`, UTC, English) so an agent can start with availability.
 */
export async function resolveCalendar(
  ctx: CalendarContext,
  calendarId: string | null | undefined,
): Promise<CalendarRow> {
  if (calendarId) return findCalendar(ctx.sql, ctx.organizationId, calendarId);
  const { rows } = await runStatement<CalendarRow>(ctx.sql, calendarDefault, [ctx.organizationId]);
  if (rows[0]) return rows[0];
  const created = await runStatement<CalendarRow>(ctx.sql, calendarCreateDefault, [
    ctx.ids.uuid(),
    ctx.organizationId,
    ctx.now,
  ]);
  if (created.rows[0]) return created.rows[0];
  // Another run made it (or a calendar named `default` exists): read what is there.
  const again = await runStatement<CalendarRow>(ctx.sql, calendarFirst, [ctx.organizationId]);
  const row = again.rows[0];
  if (!row) throw new Error('default calendar neither created nor found');
  return row;
}
