import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { resolveCalendar } from './calendars.js';
import { calendarContract, invalid, required } from './common.js';
import { findEventTypes } from './event-types.js';
import { templateInsert, templateList, templateUpdate } from './sql.js';
import { findTemplate, type TemplateRow, templateView } from './templates.js';

/** Params of `calendar.booking_link_template.manage`. */
export interface TemplateManageInput {
  readonly operation: 'list' | 'create' | 'update' | 'archive';
  readonly template_id?: string;
  readonly calendar_id?: string | null;
  readonly name?: string;
  readonly slug_base?: string;
  readonly default_title?: string;
  readonly default_intro?: string | null;
  readonly default_valid_days?: number;
  readonly default_one_time_use?: boolean;
  readonly status?: 'active' | 'paused' | 'archived';
  readonly allowed_event_type_ids?: string[];
  readonly email_binding_required?: boolean;
  readonly phone_required?: boolean;
  readonly booking_window_days?: number;
  readonly min_notice_minutes?: number;
  readonly slot_limit?: number;
}

/**
 * `calendar.booking_link_template.manage`: reusable link settings (title, intro, validity, one-time
 * use, the booking rules). Links made from a template copy its values; changing the template later
 * does not change links already sent. A paused or archived template makes no new links.
 */
export const calendarBookingLinkTemplateManageHandler = defineCapabilityHandler<TemplateManageInput, unknown>(
  {
    contract: calendarContract('calendar.booking_link_template.manage'),
    async handle(input, ctx) {
      if (input.operation === 'list') {
        const { rows } = await runStatement<TemplateRow>(ctx.sql, templateList, [
          ctx.organizationId,
          input.status ?? null,
        ]);
        return { operation: 'list', templates: rows.map(templateView), count: rows.length };
      }
      if (input.allowed_event_type_ids) {
        await findEventTypes(ctx.sql, ctx.organizationId, input.allowed_event_type_ids);
      }
      if (input.operation === 'create') {
        const calendar = await resolveCalendar(ctx, input.calendar_id);
        const name = required(input.name, 'name', 'create');
        const { rows } = await runStatement<TemplateRow>(ctx.sql, templateInsert, [
          ctx.ids.uuid(),
          ctx.organizationId,
          calendar.id,
          name,
          required(input.slug_base, 'slug_base', 'create'),
          input.default_title ?? name,
          input.default_intro ?? null,
          input.default_valid_days ?? 14,
          input.default_one_time_use ?? true,
          JSON.stringify(input.allowed_event_type_ids ?? []),
          input.email_binding_required ?? false,
          input.phone_required ?? false,
          input.booking_window_days ?? 60,
          input.min_notice_minutes ?? 120,
          input.slot_limit ?? 60,
          input.status ?? 'active',
          ctx.now,
        ]);
        return { operation: 'create', template: templateView(rows[0] as TemplateRow) };
      }
      const id = required(input.template_id, 'template_id', input.operation);
      const current = await findTemplate(ctx.sql, ctx.organizationId, id);
      if (current.status === 'archived' && input.operation === 'update') {
        invalid('template_id', 'An archived template cannot be changed.');
      }
      const calendarId = input.calendar_id
        ? (await resolveCalendar(ctx, input.calendar_id)).id
        : current.calendar_id;
      const status = input.operation === 'archive' ? 'archived' : (input.status ?? current.status);
      const { rows } = await runStatement<TemplateRow>(ctx.sql, templateUpdate, [
        ctx.organizationId,
        id,
        calendarId,
        input.name ?? current.name,
        input.slug_base ?? current.slug_base,
        input.default_title ?? current.default_title,
        input.default_intro === undefined ? current.default_intro : input.default_intro,
        input.default_valid_days ?? current.default_valid_days,
        input.default_one_time_use ?? current.default_one_time_use,
        JSON.stringify(input.allowed_event_type_ids ?? current.allowed_event_type_ids),
        input.email_binding_required ?? current.email_binding_required,
        input.phone_required ?? current.phone_required,
        input.booking_window_days ?? current.booking_window_days,
        input.min_notice_minutes ?? current.min_notice_minutes,
        input.slot_limit ?? current.slot_limit,
        status,
        ctx.now,
      ]);
      return { operation: input.operation, template: templateView(rows[0] as TemplateRow) };
    },
  },
);
