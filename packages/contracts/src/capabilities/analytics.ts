import { Type } from '@sinclair/typebox';
import { DisplayText } from '../schemas/display-text.js';
import { Described, FreeObject, Timestamp, Uuid } from '../schemas/primitives.js';
import { Count, Input, Limit, OneOf, Output, Text } from './common.js';
import { defineCapability } from './types.js';

/** Buckets of a stats series at most (see `series` below). */
const MAX_SERIES_BUCKETS = 800;
/**
 * Active analytics properties an organization may have at most (`list` answers them all; `create`
 * refuses more).
 */
const MAX_ANALYTICS_PROPERTIES = 100;

/** The property and time window every analytics read is scoped to. */
const Window = () => ({
  property_id: Type.Optional(
    Described(
      Uuid(),
      'The property (analytics.property.manage) to read; may be left out when the organization has exactly one.',
    ),
  ),
  from: Type.Optional(
    Described(
      Timestamp(),
      'Start of the window (inclusive); 7 days before `to` when left out. At most 400 days before `to`.',
    ),
  ),
  to: Type.Optional(Described(Timestamp(), 'End of the window (exclusive); now when left out.')),
});

/** analytics.events.read: raw analytics events with filters. */
export const analyticsEventsRead = defineCapability({
  id: 'analytics.events.read',
  version: '1.0.0',
  summary:
    'Read analytics events of a property in a time window, filtered by name, category, source, outcome or text.',
  tags: ['analytics', 'events', 'read'],
  risk_level: 'low',
  scopes: ['analytics:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({
    ...Window(),
    event_name: Type.Optional(
      Described(Text(1, 120), 'Only events of exactly this name.', ['pageview', 'signup']),
    ),
    event_category: Type.Optional(Described(Text(1, 80), 'Only events of exactly this category.')),
    event_source: Type.Optional(
      Described(Text(1, 80), 'Only events from exactly this source (e.g. web, server).'),
    ),
    event_outcome: Type.Optional(
      Described(Text(1, 80), 'Only events with exactly this outcome (e.g. success, error).'),
    ),
    query: Type.Optional(
      Described(
        Text(1, 160),
        'Text found anywhere (case-insensitive) in name, path, category, source, outcome or referring host.',
      ),
    ),
    errors_only: Type.Optional(Described(Type.Boolean(), 'Only events whose outcome is error.')),
    limit: Type.Optional(Described(Limit(500), 'Most events to answer, 1 to 500; 100 when left out.')),
  }),
  output_schema: Output({
    events: Type.Array(FreeObject(), {
      maxItems: 500,
      description:
        'Matching events, newest first: id, name, occurred_at, received_at (UTC), category, source, outcome, host, path, referrer_host, visitor_id, properties.',
    }),
    count: Described(Count(), 'Events answered.'),
    limit: Described(Type.Integer({ minimum: 1 }), 'The limit applied.'),
    truncated: Described(
      Type.Boolean(),
      'True when more events matched than limit: narrow the window or the filters.',
    ),
  }),
});

/** analytics.stats.read: aggregated statistics of a property. */
export const analyticsStatsRead = defineCapability({
  id: 'analytics.stats.read',
  version: '1.0.0',
  summary:
    'Read aggregated analytics of a property: totals, top pages and referrers, events by name, errors, series.',
  tags: ['analytics', 'stats', 'read'],
  risk_level: 'low',
  scopes: ['analytics:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({
    ...Window(),
    granularity: Type.Optional(
      Described(
        OneOf(['hour', 'day']),
        "Bucket size of series, in the property's time zone; day for windows over 2 days, else hour, when left out. Hourly windows span at most 31 days.",
      ),
    ),
    limit_pages: Type.Optional(Described(Limit(100), 'Most entries of top_pages; 10 when left out.')),
    limit_referrers: Type.Optional(Described(Limit(100), 'Most entries of top_referrers; 10 when left out.')),
    limit_events: Type.Optional(
      Described(Limit(100), 'Most entries of events_by_name and errors; 10 when left out.'),
    ),
    sample_limit: Type.Optional(
      Described(
        Type.Integer({ minimum: 100, maximum: 10000 }),
        'Most newest events in sample; 100 when left out.',
      ),
    ),
  }),
  output_schema: Output({
    window: FreeObject('The window read: from, to (UTC), timezone, granularity, property_id'),
    totals: FreeObject(
      'Totals of the window: visitors, visits, pageviews, events, errors, bounce_rate (0 to 1), visit_duration_seconds (mean per visit)',
    ),
    top_pages: Type.Array(FreeObject(), {
      maxItems: 100,
      description: 'Most viewed paths, most first, each with its counts (docs/analytics.md defines them).',
    }),
    top_referrers: Type.Array(FreeObject(), {
      maxItems: 100,
      description: 'Referring hosts that brought the most visits, each with visits, bounces and duration.',
    }),
    events_by_name: Type.Array(FreeObject(), {
      maxItems: 100,
      description: 'Events counted per name and category, most first, with last_at.',
    }),
    errors: Type.Array(FreeObject(), {
      maxItems: 100,
      description: 'Events with outcome error, counted per name.',
    }),
    // Hourly: at most 31 days (744 hours, one more at each partial end and a change of summer time);
    // daily: at most 400 days and the partial ends.
    series: Type.Array(FreeObject(), {
      maxItems: MAX_SERIES_BUCKETS,
      description:
        "Every bucket of the window in order (start in the property's time zone), with its counts.",
    }),
    sample: FreeObject('The newest events of the window: { events, count, limit }'),
  }),
});

const PROPERTY_OPERATIONS = ['list', 'create', 'update', 'archive'] as const;

/** A site's host name as its pages report it (`example.com`, `shop.example.com`, `127.0.0.1`). */
const Domain = () =>
  Type.String({
    minLength: 1,
    maxLength: 253,
    pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$',
    examples: ['example.com', 'shop.example.com'],
  });

/**
 * analytics.property.manage (beyond the spec): the sites and apps an organization measures. Each has a
 * public ingestion id that pages and servers send events with (`POST /a/events`), the domains its pages
 * may report, a time zone for daily series, and how long its events are kept.
 */
export const analyticsPropertyManage = defineCapability({
  id: 'analytics.property.manage',
  version: '1.0.0',
  summary: 'List, create, update or archive analytics properties (sites) and get their public ingestion id.',
  tags: ['analytics', 'property', 'manage'],
  risk_level: 'low',
  scopes: ['analytics:write'],
  cost_credits: '0',
  mutating: true,
  read_operations: ['list'],
  dry_run: 'supported',
  input_schema: Input({
    operation: Described(
      OneOf(PROPERTY_OPERATIONS),
      'list (reads), create (needs name and domains), update or archive (need property_id).',
    ),
    property_id: Type.Optional(Described(Uuid(), 'The property to update or archive.')),
    name: Type.Optional(Described(DisplayText(1, 160), 'Name of the site or app.', ['Shop'])),
    domains: Type.Optional(
      Type.Array(Domain(), {
        minItems: 1,
        maxItems: 20,
        uniqueItems: true,
        description:
          'Host names (optionally with :port) whose pages, and their subdomains, may report events; pages of other hosts are not counted.',
      }),
    ),
    timezone: Type.Optional(
      Described(
        Text(1, 80),
        'IANA time zone its daily series and local days use; UTC when left out on create.',
        ['Europe/Berlin'],
      ),
    ),
    retention_days: Type.Optional(
      Described(
        Type.Integer({ minimum: 1, maximum: 3650 }),
        'Days its events are kept; 400 when left out on create.',
      ),
    ),
  }),
  output_schema: Output({
    operation: Described(OneOf(PROPERTY_OPERATIONS), 'The operation performed.'),
    property: Type.Optional(
      FreeObject(
        'The property created, updated or archived, with its public ingestion_id (sent with POST /a/events and in the tracker snippet; not a secret)',
      ),
    ),
    properties: Type.Optional(
      Type.Array(FreeObject(), {
        maxItems: MAX_ANALYTICS_PROPERTIES,
        description: `The properties of list, at most ${MAX_ANALYTICS_PROPERTIES}.`,
      }),
    ),
    count: Type.Optional(Described(Count(), 'How many records the answer lists.')),
  }),
});

/** Analytics capabilities. */
export const analyticsCapabilities = [
  analyticsEventsRead,
  analyticsStatsRead,
  analyticsPropertyManage,
] as const;
