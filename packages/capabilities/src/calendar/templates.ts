import { CapabilityError } from '../define.js';
import type { Sql } from '../sql.js';
import { iso } from './common.js';

/** A booking link template row. */
export interface TemplateRow {
  readonly id: string;
  readonly calendar_id: string;
  readonly name: string;
  readonly slug_base: string;
  readonly default_title: string;
  readonly default_intro: string | null;
  readonly default_valid_days: number;
  readonly default_one_time_use: boolean;
  readonly allowed_event_type_ids: string[];
  readonly email_binding_required: boolean;
  readonly phone_required: boolean;
  readonly booking_window_days: number;
  readonly min_notice_minutes: number;
  readonly slot_limit: number;
  readonly status: 'active' | 'paused' | 'archived';
  readonly created_at: Date;
  readonly updated_at: Date;
}

export const TEMPLATE_COLUMNS = `id, calendar_id, name, slug_base, default_title, default_intro, default_valid_days,
  default_one_time_use, allowed_event_type_ids, email_binding_required, phone_required, booking_window_days,
  min_notice_minutes, slot_limit, status, created_at, updated_at`;

export function templateView(row: TemplateRow) {
  return { ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

/** The template `id` of this organization, or not_found. */
export async function findTemplate(sql: Sql, organizationId: string, id: string): Promise<TemplateRow> {
  const { rows } = await sql.query<TemplateRow>(
    `select ${TEMPLATE_COLUMNS} from calendar_link_templates where organization_id = $1 and id = $2`,
    [organizationId, id],
    { name: 'calendar.template.find' },
  );
  const row = rows[0];
  if (!row) throw new CapabilityError('not_found', 'No booking link template with that template_id.');
  return row;
}
