import { defineCapabilityHandler } from '../define.js';
import { resolveCalendar } from './calendars.js';
import { calendarContract, invalid, required } from './common.js';
import { findEventTypes } from './event-types.js';
import { findTemplate, TEMPLATE_COLUMNS, type TemplateRow, templateView } from './templates.js';

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
        const { rows } = await ctx.sql.query<TemplateRow>(
          `select ${TEMPLATE_COLUMNS} from calendar_link_templates
where organization_id = $1 and ($2::text is null or status = $2) order by created_at, id`,
          [ctx.organizationId, input.status ?? null],
          { name: 'calendar.template.list' },
        );
        return { operation: 'list', templates: rows.map(templateView), count: rows.length };
      }
      if (input.allowed_event_type_ids) {
        await findEventTypes(ctx.sql, ctx.organizationId, input.allowed_event_type_ids);
      }
      if (input.operation === 'create') {
        const calendar = await resolveCalendar(ctx, input.calendar_id);
        const name = required(input.name, 'name', 'create');
        const { rows } = await ctx.sql.query<TemplateRow>(
          `insert into calendar_link_templates (id, organization_id, calendar_id, name, slug_base, default_title,
  default_intro, default_valid_days, default_one_time_use, allowed_event_type_ids, email_binding_required,
  phone_required, booking_window_days, min_notice_minutes, slot_limit, status, created_at, updated_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
returning ${TEMPLATE_COLUMNS}`,
          [
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
          ],
          { name: 'calendar.template.insert' },
        );
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
      const { rows } = await ctx.sql.query<TemplateRow>(
        `update calendar_link_templates set calendar_id = $3, name = $4, slug_base = $5, default_title = $6,
  default_intro = $7, default_valid_days = $8, default_one_time_use = $9, allowed_event_type_ids = $10,
  email_binding_required = $11, phone_required = $12, booking_window_days = $13, min_notice_minutes = $14,
  slot_limit = $15, status = $16, updated_at = $17
where organization_id = $1 and id = $2
returning ${TEMPLATE_COLUMNS}`,
        [
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
        ],
        { name: 'calendar.template.update' },
      );
      return { operation: input.operation, template: templateView(rows[0] as TemplateRow) };
    },
  },
);
