import { randomBytes } from 'node:crypto';
import { type CapabilityContext, CapabilityError, defineCapabilityHandler } from '../define.js';
import { slugOf } from '../slug.js';
import { runStatement } from '../sql.js';
import { resolveCalendar } from './calendars.js';
import { calendarContract, checkEmail, invalid, isUniqueViolation, required } from './common.js';
import { findEventTypes } from './event-types.js';
import { findLink, type LinkRow, linkStatus, linkView, publicPath, publicUrl } from './links.js';
import { linkInsert, linkList, linkRevoke, linkUpdate } from './sql.js';
import { findTemplate, type TemplateRow } from './templates.js';

/** Params of `calendar.booking_link.manage`. */
export interface LinkManageInput {
  readonly operation: 'list' | 'create' | 'update' | 'revoke';
  readonly link_id?: string;
  readonly template_id?: string | null;
  readonly calendar_id?: string | null;
  readonly slug?: string;
  readonly slug_suffix?: string;
  readonly recipient_email?: string | null;
  readonly recipient_name?: string | null;
  readonly recipient_account_id?: string | null;
  readonly project_id?: string | null;
  readonly title?: string;
  readonly access_mode?: 'public' | 'secret';
  readonly valid_days?: number;
  readonly valid_until?: string;
  readonly one_time_use?: boolean;
  readonly status?: 'active' | 'expired' | 'revoked' | 'booked';
  readonly allowed_event_type_ids?: string[];
  readonly email_binding_required?: boolean;
  readonly phone_required?: boolean;
  readonly booking_window_days?: number;
  readonly min_notice_minutes?: number;
  readonly slot_limit?: number;
  readonly bookings_per_hour?: number | null;
  readonly rules_json?: Record<string, unknown>;
  readonly context?: Record<string, unknown>;
}

const DAY_MS = 86_400_000;

function validUntil(input: LinkManageInput, now: Date, fallbackDays: number | null): Date | null {
  if (input.valid_until !== undefined) {
    const until = new Date(input.valid_until);
    if (until.getTime() <= now.getTime()) invalid('valid_until', 'valid_until must be in the future.');
    return until;
  }
  const days = input.valid_days ?? fallbackDays;
  return days === null ? null : new Date(now.getTime() + days * DAY_MS);
}

/**
 * A public link answers its path and absolute `url`; a secret link's need the secret, which only
 * issue_secret shows.
 */
function pathOf(row: LinkRow, ctx: CapabilityContext) {
  if (row.access_mode !== 'public') return { url_path: null, secret_redacted: true };
  const path = publicPath(row.slug);
  return { url_path: path, ...publicUrl(ctx.publicBaseUrl, path), secret_redacted: false };
}

/**
 * `calendar.booking_link.manage`: list, create, update or revoke booking links. A secret link is
 * created without a secret: `calendar.booking_link.issue_secret` makes one and shows it once. A
 * generated slug is the template's `slug_base` (or the title) plus `slug_suffix` or 8 random hex digits.
 * Revoked and booked links are final; an expired link can be extended by `update` with a new validity.
 */
export const calendarBookingLinkManageHandler = defineCapabilityHandler<LinkManageInput, unknown>({
  contract: calendarContract('calendar.booking_link.manage'),
  async handle(input, ctx) {
    if (input.recipient_email) checkEmail(input.recipient_email, 'recipient_email');
    if (input.operation === 'list') {
      const { rows } = await runStatement<LinkRow>(ctx.sql, linkList, [
        ctx.organizationId,
        input.calendar_id ?? null,
        input.template_id ?? null,
      ]);
      const links = rows
        .filter((row) => input.status === undefined || linkStatus(row, ctx.now) === input.status)
        .filter((row) => input.project_id === undefined || row.project_id === input.project_id);
      return {
        operation: 'list',
        links: links.map((row) => linkView(row, ctx.now)),
        contexts: links.map((row) => ({ link_id: row.id, context: row.context })),
        count: links.length,
      };
    }
    if (input.allowed_event_type_ids) {
      await findEventTypes(ctx.sql, ctx.organizationId, input.allowed_event_type_ids);
    }
    try {
      if (input.operation === 'create') return await create(input, ctx);
      const id = required(input.link_id, 'link_id', input.operation);
      const current = await findLink(ctx.sql, ctx.organizationId, id);
      const status = linkStatus(current, ctx.now);
      if (current.status === 'revoked' || current.status === 'booked') {
        throw new CapabilityError('conflict', `The link is ${current.status}; it cannot change any more.`);
      }
      if (input.operation === 'revoke' || input.status === 'revoked') {
        const { rows } = await runStatement<LinkRow>(ctx.sql, linkRevoke, [ctx.organizationId, id, ctx.now]);
        const row = rows[0] as LinkRow;
        return {
          operation: input.operation,
          link: linkView(row, ctx.now),
          context: row.context,
          ...pathOf(row, ctx),
        };
      }
      if (input.status !== undefined && input.status !== status) {
        invalid(
          'status',
          'A link moves to revoked by revoke; booked and expired follow from bookings and valid_until.',
        );
      }
      const recipientEmail =
        input.recipient_email === undefined ? current.recipient_email : input.recipient_email;
      const binding = input.email_binding_required ?? current.email_binding_required;
      if (binding && !recipientEmail)
        invalid('recipient_email', 'email_binding_required needs a recipient_email.');
      const until =
        input.valid_until !== undefined || input.valid_days !== undefined
          ? validUntil(input, ctx.now, null)
          : current.valid_until;
      const { rows } = await runStatement<LinkRow>(ctx.sql, linkUpdate, [
        ctx.organizationId,
        id,
        input.title ?? current.title,
        recipientEmail,
        input.recipient_name === undefined ? current.recipient_name : input.recipient_name,
        input.recipient_account_id === undefined ? current.recipient_account_id : input.recipient_account_id,
        input.project_id === undefined ? current.project_id : input.project_id,
        until,
        input.one_time_use ?? current.one_time_use,
        JSON.stringify(input.allowed_event_type_ids ?? current.allowed_event_type_ids),
        binding,
        input.phone_required ?? current.phone_required,
        input.booking_window_days ?? current.booking_window_days,
        input.min_notice_minutes ?? current.min_notice_minutes,
        input.slot_limit ?? current.slot_limit,
        JSON.stringify(input.rules_json ?? current.rules_json),
        JSON.stringify(input.context ?? current.context),
        ctx.now,
        input.bookings_per_hour === undefined ? current.bookings_per_hour : input.bookings_per_hour,
      ]);
      const row = rows[0] as LinkRow;
      return { operation: 'update', link: linkView(row, ctx.now), context: row.context, ...pathOf(row, ctx) };
    } catch (error) {
      if (isUniqueViolation(error))
        throw new CapabilityError('conflict', 'That slug is taken; choose another.');
      throw error;
    }
  },
});

async function create(input: LinkManageInput, ctx: CapabilityContext) {
  let template: TemplateRow | undefined;
  if (input.template_id) {
    template = await findTemplate(ctx.sql, ctx.organizationId, input.template_id);
    if (template.status !== 'active') {
      throw new CapabilityError('conflict', `The template is ${template.status}; it makes no new links.`);
    }
  }
  const calendar = await resolveCalendar(ctx, input.calendar_id ?? template?.calendar_id ?? null);
  const title: string =
    input.title ?? template?.default_title ?? required<string>(input.title, 'title', 'create');
  const base = template?.slug_base ?? slugOf(title, 80, 'meeting');
  const slug =
    input.slug ?? `${base.slice(0, 86)}-${input.slug_suffix ?? randomBytes(4).toString('hex')}`.slice(0, 96);
  const accessMode = input.access_mode ?? 'secret';
  const binding = input.email_binding_required ?? template?.email_binding_required ?? false;
  if (binding && !input.recipient_email)
    invalid('recipient_email', 'email_binding_required needs a recipient_email.');
  const { rows } = await runStatement<LinkRow>(ctx.sql, linkInsert, [
    ctx.ids.uuid(),
    ctx.organizationId,
    ctx.installationId,
    calendar.id,
    template?.id ?? null,
    slug,
    accessMode,
    title,
    template?.default_intro ?? null,
    input.recipient_email ?? null,
    input.recipient_name ?? null,
    input.recipient_account_id ?? null,
    input.project_id ?? null,
    validUntil(input, ctx.now, template?.default_valid_days ?? null),
    input.one_time_use ?? template?.default_one_time_use ?? accessMode === 'secret',
    JSON.stringify(input.allowed_event_type_ids ?? template?.allowed_event_type_ids ?? []),
    binding,
    input.phone_required ?? template?.phone_required ?? false,
    input.booking_window_days ?? template?.booking_window_days ?? 60,
    input.min_notice_minutes ?? template?.min_notice_minutes ?? 120,
    input.slot_limit ?? template?.slot_limit ?? 60,
    JSON.stringify(input.rules_json ?? null),
    JSON.stringify(input.context ?? null),
    ctx.now,
    input.bookings_per_hour ?? null,
  ]);
  const row = rows[0] as LinkRow;
  return { operation: 'create', link: linkView(row, ctx.now), context: row.context, ...pathOf(row, ctx) };
}
