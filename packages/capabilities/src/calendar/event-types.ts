import { CapabilityError } from '../define.js';
import type { Sql } from '../sql.js';
import { runStatement } from '../sql.js';
import { iso } from './common.js';
import { eventTypeFindMany } from './sql.js';

/** An event type row. */
export interface EventTypeRow {
  readonly id: string;
  readonly calendar_id: string;
  readonly name: string;
  readonly duration_minutes: number;
  readonly buffer_before_minutes: number;
  readonly buffer_after_minutes: number;
  readonly location: string | null;
  readonly meeting_url: string | null;
  readonly description: string | null;
  readonly status: 'active' | 'archived';
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** An event type as the capabilities answer it. */
export function eventTypeView(row: EventTypeRow) {
  return { ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

/** The event types `ids` of this organization, in the order asked; not_found names a missing one. */
export async function findEventTypes(
  sql: Sql,
  organizationId: string,
  ids: readonly string[],
): Promise<EventTypeRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await runStatement<EventTypeRow>(sql, eventTypeFindMany, [organizationId, ids]);
  return ids.map((id) => {
    const row = rows.find((candidate) => candidate.id === id);
    if (!row) throw new CapabilityError('not_found', `No event type ${id}.`);
    return row;
  });
}

/**
 * What a link offers when it names no event types: one meeting of the calendar's default length,
 * without buffers, named after the link.
 */
export function defaultEventType(calendarId: string, title: string, durationMinutes: number): EventTypeRow {
  return {
    id: '',
    calendar_id: calendarId,
    name: title,
    duration_minutes: durationMinutes,
    buffer_before_minutes: 0,
    buffer_after_minutes: 0,
    location: null,
    meeting_url: null,
    description: null,
    status: 'active',
    created_at: new Date(0),
    updated_at: new Date(0),
  };
}
