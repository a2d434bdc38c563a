import { Type } from '@sinclair/typebox';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { Described, FreeObject, Nullable, NullableText, Timestamp, Uuid } from '../schemas/primitives.js';
import { CALENDAR_LIST_MAX, CalendarSlug, OperationCount } from './calendar.js';
import { Input, OneOf, Output } from './common.js';
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
  allowed_event_type_ids: Type.Optional(
    Type.Array(Uuid(), {
      maxItems: ALLOWED_EVENT_TYPES_MAX,
      description:
        "Event types (calendar.event_type.manage) the booker may choose from; empty or left out: a meeting of the calendar's default_duration_minutes.",
    }),
  ),
  email_binding_required: Type.Optional(
    Described(
      Type.Boolean(),
      'True: only the recipient_email may book (the booker must enter that address).',
    ),
  ),
  phone_required: Type.Optional(Described(Type.Boolean(), 'True: the booking page asks for a phone number.')),
  booking_window_days: Type.Optional(Described(Days(), 'How many days ahead slots are offered.', [14])),
  min_notice_minutes: Type.Optional(
    Described(
      Type.Integer({ minimum: 0, maximum: 10080 }),
      'Minutes between now and the earliest bookable slot (at most 7 days).',
      [120],
    ),
  ),
  slot_limit: Type.Optional(
    Described(Type.Integer({ minimum: 1, maximum: 60 }), 'Most slots the booking page shows at once.'),
  ),
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
    operation: Described(
      OneOf(TEMPLATE_OPERATIONS),
      'list (reads), create, update or archive (these need template_id, except create).',
    ),
    template_id: Type.Optional(Described(Uuid(), 'The template to update or archive.')),
    calendar_id: Type.Optional(
      Described(
        Nullable(Uuid()),
        "The calendar its links book into; the organization's default calendar when null or left out.",
      ),
    ),
    name: Type.Optional(Described(DisplayText(1, 160), 'Name of the template (required on create).')),
    slug_base: Type.Optional(
      Described(
        CalendarSlug(),
        'Start of the slugs of links made from it (a suffix is added); made from the name when left out.',
        ['erstgespraech'],
      ),
    ),
    default_title: Type.Optional(Described(DisplayText(1, 240), 'Title its links get when they give none.')),
    default_intro: Type.Optional(
      Described(NullableMultilineText(4000), 'Text shown on the booking page above the slots.'),
    ),
    default_valid_days: Type.Optional(
      Described(Days(), 'Days its links stay valid when they give no validity.'),
    ),
    default_one_time_use: Type.Optional(
      Described(Type.Boolean(), 'True: its links take one booking and then become booked.'),
    ),
    status: Type.Optional(
      Described(
        OneOf(['active', 'paused', 'archived']),
        'active makes links; paused and archived make none (archived also leaves lists).',
      ),
    ),
    ...BookingRules(),
  }),
  output_schema: Output({
    operation: Described(OneOf(TEMPLATE_OPERATIONS), 'The operation performed.'),
    template: Type.Optional(FreeObject('The template created, updated or archived, with its booking rules')),
    templates: Type.Optional(
      Type.Array(FreeObject(), {
        maxItems: CALENDAR_LIST_MAX,
        description: `The templates of list, at most ${CALENDAR_LIST_MAX}.`,
      }),
    ),
    count: Type.Optional(OperationCount()),
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
  input_schema: Input({
    link_id: Described(Uuid(), 'The link to give a new secret; any earlier secret stops working.'),
  }),
  output_schema: Output({
    link: FreeObject('The link, without its secret (has_secret says one is live)'),
    secret_once: Described(
      Nullable(Type.String()),
      'The new secret, shown this once and stored only as a hash; null for a public link, which needs none.',
    ),
    url_path: Described(
      Type.String({ minLength: 1 }),
      'Path of the booking page on the gateway, the secret included: /book/<slug>/<secret>.',
    ),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The booking page a person opens: url_path on the gateway's PUBLIC_BASE_URL, absolute (hand it on as it is).",
        examples: ['https://gateway.example.com/book/erstgespraech-1a2b3c4d/<secret>'],
      }),
    ),
    public_link: Described(Type.Boolean(), 'True when the link is public (opens without a secret).'),
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
    operation: Described(
      OneOf(LINK_OPERATIONS),
      'list (reads), create, update or revoke (these need link_id, except create).',
    ),
    link_id: Type.Optional(Described(Uuid(), 'The link to update or revoke.')),
    template_id: Type.Optional(
      Described(Nullable(Uuid()), 'Template whose defaults and booking rules a new link takes.'),
    ),
    calendar_id: Type.Optional(
      Described(
        Nullable(Uuid()),
        "The calendar bookings go into; the template's, else the default calendar.",
      ),
    ),
    slug: Type.Optional(
      Described(
        CalendarSlug(),
        "The page's slug (/book/<slug>); made from the template's slug_base (or the title) plus slug_suffix or 8 random hex digits when left out.",
        ['erstgespraech-1a2b3c4d'],
      ),
    ),
    slug_suffix: Type.Optional(
      Described(CalendarSlug(), 'Suffix of a generated slug instead of random hex digits.'),
    ),
    recipient_email: Type.Optional(
      Described(
        NullableText(320),
        'Email of the person the link is for; with email_binding_required only they may book.',
      ),
    ),
    recipient_name: Type.Optional(Described(NullableDisplayText(160), 'Name of the person the link is for.')),
    recipient_account_id: Type.Optional(
      Described(
        NullableText(120),
        "Caller's id of the recipient (e.g. a CRM or billing account id), kept with the link.",
      ),
    ),
    project_id: Type.Optional(Described(NullableText(120), "Caller's project id, kept with the link.")),
    title: Type.Optional(
      Described(
        DisplayText(1, 240),
        "Title shown on the booking page; the template's default_title when left out.",
      ),
    ),
    access_mode: Type.Optional(
      Described(
        OneOf(['public', 'secret']),
        'secret (default): the page needs a secret from calendar.booking_link.issue_secret; public: /book/<slug> opens as it is.',
      ),
    ),
    valid_days: Type.Optional(Described(Days(), 'Days from now the link stays valid.')),
    valid_until: Type.Optional(Described(Timestamp(), 'When the link expires; wins over valid_days.')),
    one_time_use: Type.Optional(
      Described(Type.Boolean(), 'True: the link takes one booking and then becomes booked.'),
    ),
    status: Type.Optional(
      Described(
        OneOf(['active', 'expired', 'revoked', 'booked']),
        'As a list filter, or set on update: active (bookable), expired (past valid_until), revoked (closed for good), booked (a one-time link that was used).',
      ),
    ),
    ...BookingRules(),
    // Not in the spec: how many bookings this link takes per hour (null: the gateway's default;
    // docs/calendar.md, "Caps"). The organization's caps hold whatever a link says.
    bookings_per_hour: Type.Optional(
      Described(
        Nullable(Type.Integer({ minimum: 1, maximum: 1000 })),
        "Most bookings this link takes per hour; null: the gateway's default. The organization's caps apply too.",
      ),
    ),
    rules_json: Type.Optional(FreeObject('Further booking rules of the caller, stored with the link')),
    context: Type.Optional(
      FreeObject(
        'Caller data kept with the link and answered with it (e.g. the deal or ticket it belongs to)',
      ),
    ),
  }),
  output_schema: Output({
    operation: Described(OneOf(LINK_OPERATIONS), 'The operation performed.'),
    link: Type.Optional(
      FreeObject(
        'The link created, updated or revoked: slug, status, validity, booking rules; never its secret',
      ),
    ),
    links: Type.Optional(
      Type.Array(FreeObject(), {
        maxItems: CALENDAR_LIST_MAX,
        description: `The links of list, at most ${CALENDAR_LIST_MAX}.`,
      }),
    ),
    context: Type.Optional(Described(Nullable(FreeObject()), "The link's caller data; null when none.")),
    contexts: Type.Optional(
      Type.Array(FreeObject(), {
        maxItems: CALENDAR_LIST_MAX,
        description: 'For list: { link_id, context } of each link.',
      }),
    ),
    count: Type.Optional(OperationCount()),
    url_path: Type.Optional(
      Described(
        Nullable(Type.String()),
        "A public link's page path (/book/<slug>); null for a secret link, whose path needs the secret.",
      ),
    ),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A public link's booking page, absolute: url_path on the gateway's PUBLIC_BASE_URL. Absent for a secret link (calendar.booking_link.issue_secret answers it).",
        examples: ['https://gateway.example.com/book/erstgespraech-1a2b3c4d'],
      }),
    ),
    secret_redacted: Type.Optional(
      Described(
        Type.Boolean(),
        'True for a secret link: its path is withheld here (issue_secret shows it once).',
      ),
    ),
  }),
});

/** Calendar booking link capabilities. */
export const calendarLinkCapabilities = [
  calendarBookingLinkTemplateManage,
  calendarBookingLinkIssueSecret,
  calendarBookingLinkManage,
] as const;
