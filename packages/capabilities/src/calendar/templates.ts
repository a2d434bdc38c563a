import { CapabilityError } from '../define.js';
import type { Sql } from '../sql.js';
import { runStatement } from '../sql.js';
import { iso } from './common.js';
import { templateFind } from './sql.js';

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

export function templateView(row: TemplateRow) {
  return { ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

/** The template `id` of this organization, or not_found. */
export async function findTemplate(sql: Sql, organizationId: string, id: string): Promise<TemplateRow> {
  const { rows } = await runStatement<TemplateRow>(sql, templateFind, [organizationId, id]);
  const row = rows[0];
  if (!row) throw new CapabilityError('not_found', 'No booking link template with that template_id.');
  return row;
}
