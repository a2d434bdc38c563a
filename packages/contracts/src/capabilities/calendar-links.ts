import { Type } from '@sinclair/typebox';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { FreeObject, Nullable, NullableText, Timestamp, Uuid } from '../schemas/primitives.js';
import { CALENDAR_LIST_MAX, CalendarSlug } from './calendar.js';
import { Count, Input, OneOf, Output } from './common.js';
import { defineCapability } from './types.js';

/** Event types one link or template offers. */
const ALLOWED_EVENT_TYPES_MAX = 50;

/** Validity and booking windows: 1 to 365 days. */
const Days = () => Type.Integer({ minimum: 1, maximum: 365 });

/**
 * The booking rules a template sets and a link carries (or overrides): which event types may be booked,
 * what the booker must give, how far ahead and how soon a slot may be, and how many slots are offered.
 */
const BookingRules = () => ({
  allowed_event_type_ids: Type.Optional(Type.Array(Uuid(), { maxItems: ALLOWED_EVENT_TYPES_MAX })),
  email_binding_required: Type.Optional(Type.Boolean()),
  phone_required: Type.Optional(Type.Boolean()),
  booking_window_days: Type.Optional(Days()),
  min_notice_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 10080 })),
  slot_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 60 })),
});

/** The `operation` values of each *.manage capability (input and output carry the same set). */
const TEMPLATE_OPERATIONS = ['list', 'create', 'update', 'archive'] as const;
const LINK_OPERATIONS = ['list', 'create', 'update', 'revoke'] as const;

/** calendar.booking_link_template.manage. */
export const calendarBookingLinkTemplateManage = defineCapability({
  id: 'calendar.booking_link_template.manage',
  version: '1.0.0',
  summary: 'List, create, update or archive booking link templates.',
  tags: ['calendar', 'booking_link_template', 'manage'],
  risk_level: 'medium',
  scopes: ['calendar:write'],
  cost_credits: '0',
  mutating: true,
  read_operations: ['list'],
  dry_run: 'supported',
  input_schema: Input({
    operation: OneOf(TEMPLATE_OPERATIONS),
    template_id: Type.Optional(Uuid()),
    calendar_id: Type.Optional(Nullable(Uuid())),
    name: Type.Optional(DisplayText(1, 160)),
    slug_base: Type.Optional(CalendarSlug()),
    default_title: Type.Optional(DisplayText(1, 240)),
    default_intro: Type.Optional(NullableMultilineText(4000)),
    default_valid_days: Type.Optional(Days()),
    default_one_time_use: Type.Optional(Type.Boolean()),
    status: Type.Optional(OneOf(['active', 'paused', 'archived'])),
    ...BookingRules(),
  }),
  output_schema: Output({
    operation: OneOf(TEMPLATE_OPERATIONS),
    template: Type.Optional(FreeObject()),
    templates: Type.Optional(Type.Array(FreeObject(), { maxItems: CALENDAR_LIST_MAX })),
    count: Type.Optional(Count()),
  }),
});

/** calendar.booking_link.issue_secret. */
export const calendarBookingLinkIssueSecret = defineCapability({
  id: 'calendar.booking_link.issue_secret',
  version: '1.0.0',
  summary: 'Issue a new secret for a booking link; the secret is shown once.',
  tags: ['calendar', 'booking_link', 'secret'],
  risk_level: 'high',
  scopes: ['calendar:write'],
  cost_credits: '0',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({ link_id: Uuid() }),
  output_schema: Output({
    link: FreeObject(),
    secret_once: Nullable(Type.String()),
    url_path: Type.String({ minLength: 1 }),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The booking page a person opens: url_path on the gateway's PUBLIC_BASE_URL, absolute (hand it on as it is).",
        examples: ['https://gateway.example.com/book/erstgespraech-1a2b3c4d/<secret>'],
      }),
    ),
    public_link: Type.Boolean(),
  }),
});

/** calendar.booking_link.manage. */
export const calendarBookingLinkManage = defineCapability({
  id: 'calendar.booking_link.manage',
  version: '1.0.0',
  summary: 'List, create, update or revoke booking links.',
  tags: ['calendar', 'booking_link', 'manage'],
  risk_level: 'medium',
  scopes: ['calendar:write'],
  cost_credits: '0',
  mutating: true,
  read_operations: ['list'],
  dry_run: 'supported',
  input_schema: Input({
    operation: OneOf(LINK_OPERATIONS),
    link_id: Type.Optional(Uuid()),
    template_id: Type.Optional(Nullable(Uuid())),
    calendar_id: Type.Optional(Nullable(Uuid())),
    slug: Type.Optional(CalendarSlug()),
    slug_suffix: Type.Optional(CalendarSlug()),
    recipient_email: Type.Optional(NullableText(320)),
    recipient_name: Type.Optional(NullableDisplayText(160)),
    recipient_account_id: Type.Optional(NullableText(120)),
    project_id: Type.Optional(NullableText(120)),
    title: Type.Optional(DisplayText(1, 240)),
    access_mode: Type.Optional(OneOf(['public', 'secret'])),
    valid_days: Type.Optional(Days()),
    valid_until: Type.Optional(Timestamp()),
    one_time_use: Type.Optional(Type.Boolean()),
    status: Type.Optional(OneOf(['active', 'expired', 'revoked', 'booked'])),
    ...BookingRules(),
    // Not in the spec: how many bookings this link takes per hour (null: the gateway's default;
    // docs/calendar.md, "Caps"). The organization's caps hold whatever a link says.
    bookings_per_hour: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }))),
    rules_json: Type.Optional(FreeObject()),
    context: Type.Optional(FreeObject()),
  }),
  output_schema: Output({
    operation: OneOf(LINK_OPERATIONS),
    link: Type.Optional(FreeObject()),
    links: Type.Optional(Type.Array(FreeObject(), { maxItems: CALENDAR_LIST_MAX })),
    context: Type.Optional(Nullable(FreeObject())),
    contexts: Type.Optional(Type.Array(FreeObject(), { maxItems: CALENDAR_LIST_MAX })),
    count: Type.Optional(Count()),
    url_path: Type.Optional(Nullable(Type.String())),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A public link's booking page, absolute: url_path on the gateway's PUBLIC_BASE_URL. Absent for a secret link (calendar.booking_link.issue_secret answers it).",
        examples: ['https://gateway.example.com/book/erstgespraech-1a2b3c4d'],
      }),
    ),
    secret_redacted: Type.Optional(Type.Boolean()),
  }),
});

/** Calendar booking link capabilities. */
export const calendarLinkCapabilities = [
  calendarBookingLinkTemplateManage,
  calendarBookingLinkIssueSecret,
  calendarBookingLinkManage,
] as const;
