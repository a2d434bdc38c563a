import { Type } from '@sinclair/typebox';
import {
  DisplayText,
  MultilineText,
  NullableDisplayText,
  NullableMultilineText,
} from '../schemas/display-text.js';
import {
  CALENDAR_SLUG_PATTERN,
  Described,
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

/** How many records a *.manage answer carries (list: the records listed). */
export const OperationCount = () => Described(Count(), 'How many records the answer lists.');

/** An IANA time zone name (the tz database). */
const TimeZone = (meaning: string) =>
  Described(Text(1, 80), `${meaning} An IANA time zone name (tz database).`, ['Europe/Berlin', 'UTC']);

/** A calendar id that may be left out for the organization's default calendar. */
const CalendarChoice = (meaning: string) =>
  Described(Nullable(Uuid()), `${meaning} The organization's default calendar when null or left out.`);

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
    operation: Described(
      OneOf(AVAILABILITY_OPERATIONS),
      'get (reads the rules) or replace (sets the whole week: rules not given are removed).',
    ),
    calendar_id: Type.Optional(CalendarChoice('The calendar whose rules are read or replaced.')),
    rules: Type.Optional(
      Type.Array(
        Input({
          day_of_week: Described(
            Type.Integer({ minimum: 0, maximum: 6 }),
            'Day of the week: 0 = Sunday … 6 = Saturday.',
            [1],
          ),
          start_time: Described(
            Type.String({ pattern: TIME_OF_DAY_PATTERN }),
            "Start of the window, wall-clock HH:MM or HH:MM:SS (24-hour) in the rule's time zone.",
            ['09:00'],
          ),
          end_time: Described(
            Type.String({ pattern: TIME_OF_DAY_PATTERN }),
            'End of the window, after start_time, same format and zone.',
            ['17:00'],
          ),
          timezone: Type.Optional(
            TimeZone("Zone of the window's times; the calendar's timezone when left out."),
          ),
        }),
        {
          maxItems: AVAILABILITY_RULES_MAX,
          description:
            'For replace: the weekly windows in which slots may be booked; an empty list closes the calendar.',
        },
      ),
    ),
  }),
  output_schema: Output({
    operation: Described(OneOf(AVAILABILITY_OPERATIONS), 'The operation performed.'),
    rules: Type.Array(FreeObject(), {
      maxItems: AVAILABILITY_RULES_MAX,
      description: "The calendar's weekly rules now: day_of_week, start_time, end_time, timezone each.",
    }),
    count: OperationCount(),
    calendar_id: Type.Optional(Described(Nullable(Uuid()), 'The calendar the rules belong to.')),
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
    operation: Described(
      OneOf(BOOKING_OPERATIONS),
      'list (reads), update (title, notes, status, or a move with start_at/end_at) or cancel; update and cancel need booking_id. A move or cancel mails the booker.',
    ),
    booking_id: Type.Optional(Described(Uuid(), 'The booking to update or cancel.')),
    calendar_id: Type.Optional(Described(Nullable(Uuid()), 'For list: only bookings of this calendar.')),
    from: Type.Optional(Described(Timestamp(), 'For list: only bookings ending after this instant.')),
    to: Type.Optional(Described(Timestamp(), 'For list: only bookings starting before this instant.')),
    include_cancelled: Type.Optional(
      Described(Type.Boolean(), 'For list: include cancelled bookings; false when left out.'),
    ),
    title: Type.Optional(Described(DisplayText(1, 240), 'New title of the booking.')),
    notes: Type.Optional(Described(NullableMultilineText(2000), 'Internal notes on the booking.')),
    start_at: Type.Optional(Described(Timestamp(), 'New start of a moved booking (not in the past).')),
    end_at: Type.Optional(Described(Timestamp(), 'New end of a moved booking.')),
    status: Type.Optional(
      Described(
        OneOf(['confirmed', 'cancelled', 'no_show']),
        'confirmed (booked), cancelled (its time frees at once), no_show (the booker did not come).',
      ),
    ),
    cancelled_reason: Type.Optional(
      Described(MultilineText(500), 'Why it is cancelled; told to the booker.'),
    ),
  }),
  output_schema: Output({
    operation: Described(OneOf(BOOKING_OPERATIONS), 'The operation performed.'),
    booking: Type.Optional(
      FreeObject('The booking updated or cancelled: id, calendar, start_at, end_at (UTC), status, booker'),
    ),
    bookings: Type.Optional(
      Type.Array(FreeObject(), {
        maxItems: CALENDAR_LIST_MAX,
        description: `The bookings of list, at most ${CALENDAR_LIST_MAX}.`,
      }),
    ),
    count: Type.Optional(OperationCount()),
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
    operation: Described(
      OneOf(CALENDAR_OPERATIONS),
      'list (reads), create (needs name) or update (needs calendar_id).',
    ),
    calendar_id: Type.Optional(Described(Uuid(), 'The calendar to update.')),
    name: Type.Optional(Described(DisplayText(1, 160), 'Name of the calendar.', ['Sales'])),
    slug: Type.Optional(
      Described(CalendarSlug(), 'Stable short name; made from the name when left out on create.'),
    ),
    color: Type.Optional(
      Described(NullableDisplayText(32), 'Display color, e.g. a CSS hex color.', ['#2563eb']),
    ),
    is_active: Type.Optional(
      Described(Type.Boolean(), 'False takes the calendar out of booking; true when left out on create.'),
    ),
    // Not in the spec (docs/decisions.md, "calendar"): the zone availability rules default to, the
    // booking page's language, who gets the organization's copy of booking mail, and the length of
    // the meeting a link without event types offers.
    timezone: Type.Optional(
      TimeZone('Zone availability rules default to and the booking page shows; UTC when left out on create.'),
    ),
    locale: Type.Optional(
      Described(
        OneOf(['en', 'de']),
        'Language of the booking page and booking mail; en when left out on create.',
      ),
    ),
    notification_email: Type.Optional(
      Described(NullableText(320), "Who gets the organization's copy of booking mail; null: nobody."),
    ),
    default_duration_minutes: Type.Optional(
      Described(
        Type.Integer({ minimum: 5, maximum: 720 }),
        'Length in minutes of the meeting a link without event types offers; 30 when left out on create.',
      ),
    ),
  }),
  output_schema: Output({
    operation: Described(OneOf(CALENDAR_OPERATIONS), 'The operation performed.'),
    calendar: Type.Optional(FreeObject('The calendar created or updated')),
    calendars: Type.Optional(
      Type.Array(FreeObject(), {
        maxItems: CALENDAR_LIST_MAX,
        description: `The calendars of list, at most ${CALENDAR_LIST_MAX}.`,
      }),
    ),
    count: Type.Optional(OperationCount()),
  }),
});

const EVENT_TYPE_OPERATIONS = ['list', 'create', 'update', 'archive'] as const;
/** Buffers before and after a meeting: 0 to 240 minutes. */
const BufferMinutes = (side: string) =>
  Described(Type.Integer({ minimum: 0, maximum: 240 }), `Minutes kept free ${side} each meeting (0 to 240).`);

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
    operation: Described(
      OneOf(EVENT_TYPE_OPERATIONS),
      'list (reads), create, update or archive (these need event_type_id, except create).',
    ),
    event_type_id: Type.Optional(Described(Uuid(), 'The event type to update or archive.')),
    calendar_id: Type.Optional(CalendarChoice('The calendar the event type belongs to.')),
    name: Type.Optional(
      Described(DisplayText(1, 160), 'Name the booker chooses by.', ['Intro call (30 min)']),
    ),
    duration_minutes: Type.Optional(
      Described(Type.Integer({ minimum: 5, maximum: 720 }), 'Length of the meeting in minutes.', [30]),
    ),
    buffer_before_minutes: Type.Optional(BufferMinutes('before')),
    buffer_after_minutes: Type.Optional(BufferMinutes('after')),
    location: Type.Optional(
      Described(NullableDisplayText(500), 'Where the meeting takes place, as shown to the booker.'),
    ),
    meeting_url: Type.Optional(
      Described(
        Nullable(Type.String({ maxLength: 2000, pattern: '^https://[^\\s"]*$' })),
        'Video call link (https) put in the confirmation and the .ics.',
      ),
    ),
    description: Type.Optional(
      Described(NullableMultilineText(4000), 'Text shown to the booker about the meeting.'),
    ),
    include_archived: Type.Optional(Described(Type.Boolean(), 'For list: include archived event types.')),
  }),
  output_schema: Output({
    operation: Described(OneOf(EVENT_TYPE_OPERATIONS), 'The operation performed.'),
    event_type: Type.Optional(FreeObject('The event type created, updated or archived')),
    event_types: Type.Optional(
      Type.Array(FreeObject(), {
        maxItems: CALENDAR_LIST_MAX,
        description: `The event types of list, at most ${CALENDAR_LIST_MAX}.`,
      }),
    ),
    count: Type.Optional(OperationCount()),
  }),
});

/** Calendar capabilities for availability, bookings, calendars and event types. */
export const calendarCapabilities = [
  calendarAvailabilityManage,
  calendarBookingManage,
  calendarCalendarManage,
  calendarEventTypeManage,
] as const;
