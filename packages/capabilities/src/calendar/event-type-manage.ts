import { CapabilityError, defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { resolveCalendar } from './calendars.js';
import { calendarContract, required } from './common.js';
import { type EventTypeRow, eventTypeView, findEventTypes } from './event-types.js';
import { eventTypeInsert, eventTypeList, eventTypeUpdate } from './sql.js';

/** Params of `calendar.event_type.manage`. */
export interface EventTypeManageInput {
  readonly operation: 'list' | 'create' | 'update' | 'archive';
  readonly event_type_id?: string;
  readonly calendar_id?: string | null;
  readonly name?: string;
  readonly duration_minutes?: number;
  readonly buffer_before_minutes?: number;
  readonly buffer_after_minutes?: number;
  readonly location?: string | null;
  readonly meeting_url?: string | null;
  readonly description?: string | null;
  readonly include_archived?: boolean;
}

/**
 * `calendar.event_type.manage`: the kinds of meeting a link offers (name, length, buffers, where).
 * Archived types stay on existing bookings and links but are no longer offered.
 */
export const calendarEventTypeManageHandler = defineCapabilityHandler<EventTypeManageInput, unknown>({
  contract: calendarContract('calendar.event_type.manage'),
  async handle(input, ctx) {
    if (input.operation === 'list') {
      const calendar = input.calendar_id ? await resolveCalendar(ctx, input.calendar_id) : undefined;
      const { rows } = await runStatement<EventTypeRow>(ctx.sql, eventTypeList, [
        ctx.organizationId,
        calendar?.id ?? null,
        input.include_archived ?? false,
      ]);
      return { operation: 'list', event_types: rows.map(eventTypeView), count: rows.length };
    }
    if (input.operation === 'create') {
      const calendar = await resolveCalendar(ctx, input.calendar_id);
      const { rows } = await runStatement<EventTypeRow>(ctx.sql, eventTypeInsert, [
        ctx.ids.uuid(),
        ctx.organizationId,
        calendar.id,
        required(input.name, 'name', 'create'),
        required(input.duration_minutes, 'duration_minutes', 'create'),
        input.buffer_before_minutes ?? 0,
        input.buffer_after_minutes ?? 0,
        input.location ?? null,
        input.meeting_url ?? null,
        input.description ?? null,
        ctx.now,
      ]);
      return { operation: 'create', event_type: eventTypeView(rows[0] as EventTypeRow) };
    }
    const id = required(input.event_type_id, 'event_type_id', input.operation);
    const [current] = await findEventTypes(ctx.sql, ctx.organizationId, [id]);
    if (!current) throw new CapabilityError('not_found', 'No event type with that event_type_id.');
    const archive = input.operation === 'archive';
    const pick = <K extends keyof EventTypeRow>(key: K, value: EventTypeRow[K] | undefined) =>
      value === undefined ? current[key] : value;
    const { rows } = await runStatement<EventTypeRow>(ctx.sql, eventTypeUpdate, [
      ctx.organizationId,
      id,
      pick('name', input.name),
      pick('duration_minutes', input.duration_minutes),
      pick('buffer_before_minutes', input.buffer_before_minutes),
      pick('buffer_after_minutes', input.buffer_after_minutes),
      pick('location', input.location),
      pick('meeting_url', input.meeting_url),
      pick('description', input.description),
      archive ? 'archived' : current.status,
      ctx.now,
    ]);
    return { operation: input.operation, event_type: eventTypeView(rows[0] as EventTypeRow) };
  },
});
