import { Type } from '@sinclair/typebox';
import {
  DisplayText,
  MultilineText,
  NullableDisplayText,
  NullableMultilineText,
} from '../schemas/display-text.js';
import {
  CALENDAR_SLUG_PATTERN,
  FreeObject,
  Nullable,
  NullableText,
  Timestamp,
  Uuid,
} from '../schemas/primitives.js';
import { Count, Input, OneOf, Output, Text } from './common.js';
import { defineCapability } from './types.js';

/** `HH:MM` or `HH:MM:SS`, 24-hour clock. */
export const TIME_OF_DAY_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$';

/** Calendar slugs: lowercase letters, digits, `-`, starting with a letter or digit, max 96 characters. */
export const CalendarSlug = () =>
  Type.String({ minLength: 1, maxLength: 96, pattern: CALENDAR_SLUG_PATTERN });

/**
 * The longest answers of the calendar's list operations (the statements stop there; docs/calendar.md):
 * bookings and calendars, event types, templates and links of one organization.
 */
export const CALENDAR_LIST_MAX = 500;
/** Weekly availability rules of one calendar: seven days with up to ten windows each. */
export const AVAILABILITY_RULES_MAX = 70;

/** The `operation` values of each *.manage capability (input and output carry the same set). */
const AVAILABILITY_OPERATIONS = ['get', 'replace'] as const;
const BOOKING_OPERATIONS = ['list', 'update', 'cancel'] as const;
const CALENDAR_OPERATIONS = ['list', 'create', 'update'] as const;

/** calendar.availability.manage. */
export const calendarAvailabilityManage = defineCapability({
  id: 'calendar.availability.manage',
  version: '1.0.0',
  summary: 'Get or replace the weekly availability rules of a calendar (or the default calendar).',
  tags: ['calendar', 'availability', 'manage'],
  risk_level: 'medium',
  scopes: ['calendar:write'],
  cost_credits: '0',
  mutating: true,
  read_operations: ['get'],
  dry_run: 'supported',
  input_schema: Input({
    operation: OneOf(AVAILABILITY_OPERATIONS),
    calendar_id: Type.Optional(Nullable(Uuid())),
    rules: Type.Optional(
      Type.Array(
        Input({
          day_of_week: Type.Integer({ minimum: 0, maximum: 6 }),
          start_time: Type.String({ pattern: TIME_OF_DAY_PATTERN }),
          end_time: Type.String({ pattern: TIME_OF_DAY_PATTERN }),
          timezone: Type.Optional(Text(1, 80)),
        }),
        { maxItems: AVAILABILITY_RULES_MAX },
      ),
    ),
  }),
  output_schema: Output({
    operation: OneOf(AVAILABILITY_OPERATIONS),
    rules: Type.Array(FreeObject(), { maxItems: AVAILABILITY_RULES_MAX }),
    count: Count(),
    calendar_id: Type.Optional(Nullable(Uuid())),
  }),
});

/** calendar.booking.manage. */
export const calendarBookingManage = defineCapability({
  id: 'calendar.booking.manage',
  version: '1.0.0',
  summary: 'List, update or cancel bookings.',
  tags: ['calendar', 'booking', 'manage'],
  risk_level: 'medium',
  scopes: ['calendar:write'],
  cost_credits: '0',
  mutating: true,
  read_operations: ['list'],
  dry_run: 'supported',
  input_schema: Input({
    operation: OneOf(BOOKING_OPERATIONS),
    booking_id: Type.Optional(Uuid()),
    calendar_id: Type.Optional(Nullable(Uuid())),
    from: Type.Optional(Timestamp()),
    to: Type.Optional(Timestamp()),
    include_cancelled: Type.Optional(Type.Boolean()),
    title: Type.Optional(DisplayText(1, 240)),
    notes: Type.Optional(NullableMultilineText(2000)),
    start_at: Type.Optional(Timestamp()),
    end_at: Type.Optional(Timestamp()),
    status: Type.Optional(OneOf(['confirmed', 'cancelled', 'no_show'])),
    cancelled_reason: Type.Optional(MultilineText(500)),
  }),
  output_schema: Output({
    operation: OneOf(BOOKING_OPERATIONS),
    booking: Type.Optional(FreeObject()),
    bookings: Type.Optional(Type.Array(FreeObject(), { maxItems: CALENDAR_LIST_MAX })),
    count: Type.Optional(Count()),
  }),
});

/**
 * calendar.calendar.manage. The spec does not show its output; ours mirrors the other *.manage
 * capabilities: the operation, the calendar touched by create/update, the calendars of list, and a count.
 */
export const calendarCalendarManage = defineCapability({
  id: 'calendar.calendar.manage',
  version: '1.0.0',
  summary: 'List, create or update calendars.',
  tags: ['calendar', 'manage'],
  risk_level: 'medium',
  scopes: ['calendar:write'],
  cost_credits: '0',
  mutating: true,
  read_operations: ['list'],
  dry_run: 'supported',
  input_schema: Input({
    operation: OneOf(CALENDAR_OPERATIONS),
    calendar_id: Type.Optional(Uuid()),
    name: Type.Optional(DisplayText(1, 160)),
    slug: Type.Optional(CalendarSlug()),
    color: Type.Optional(NullableDisplayText(32)),
    is_active: Type.Optional(Type.Boolean()),
    // Not in the spec (docs/decisions.md, "calendar"): the zone availability rules default to, the
    // booking page's language, who gets the organization's copy of booking mail, and the length of
    // the meeting a link without event types offers.
    timezone: Type.Optional(Text(1, 80)),
    locale: Type.Optional(OneOf(['en', 'de'])),
    notification_email: Type.Optional(NullableText(320)),
    default_duration_minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 720 })),
  }),
  output_schema: Output({
    operation: OneOf(CALENDAR_OPERATIONS),
    calendar: Type.Optional(FreeObject()),
    calendars: Type.Optional(Type.Array(FreeObject(), { maxItems: CALENDAR_LIST_MAX })),
    count: Type.Optional(Count()),
  }),
});

const EVENT_TYPE_OPERATIONS = ['list', 'create', 'update', 'archive'] as const;
/** Buffers before and after a meeting: 0 to 240 minutes. */
const BufferMinutes = () => Type.Integer({ minimum: 0, maximum: 240 });

/**
 * calendar.event_type.manage. Not in the spec's catalog; the spec references event types
 * (`allowed_event_type_ids`) without a way to make them, so this adds one in the style of the other
 * *.manage capabilities (docs/decisions.md, "calendar").
 */
export const calendarEventTypeManage = defineCapability({
  id: 'calendar.event_type.manage',
  version: '1.0.0',
  summary: 'List, create, update or archive the kinds of meeting a booking link offers.',
  tags: ['calendar', 'event_type', 'manage'],
  risk_level: 'medium',
  scopes: ['calendar:write'],
  cost_credits: '0',
  mutating: true,
  read_operations: ['list'],
  dry_run: 'supported',
  input_schema: Input({
    operation: OneOf(EVENT_TYPE_OPERATIONS),
    event_type_id: Type.Optional(Uuid()),
    calendar_id: Type.Optional(Nullable(Uuid())),
    name: Type.Optional(DisplayText(1, 160)),
    duration_minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 720 })),
    buffer_before_minutes: Type.Optional(BufferMinutes()),
    buffer_after_minutes: Type.Optional(BufferMinutes()),
    location: Type.Optional(NullableDisplayText(500)),
    meeting_url: Type.Optional(Nullable(Type.String({ maxLength: 2000, pattern: '^https://[^\\s"]*$' }))),
    description: Type.Optional(NullableMultilineText(4000)),
    include_archived: Type.Optional(Type.Boolean()),
  }),
  output_schema: Output({
    operation: OneOf(EVENT_TYPE_OPERATIONS),
    event_type: Type.Optional(FreeObject()),
    event_types: Type.Optional(Type.Array(FreeObject(), { maxItems: CALENDAR_LIST_MAX })),
    count: Type.Optional(Count()),
  }),
});

/** Calendar capabilities for availability, bookings, calendars and event types. */
export const calendarCapabilities = [
  calendarAvailabilityManage,
  calendarBookingManage,
  calendarCalendarManage,
  calendarEventTypeManage,
] as const;
