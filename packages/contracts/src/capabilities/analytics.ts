import { Type } from '@sinclair/typebox';
import { DisplayText } from '../schemas/display-text.js';
import { FreeObject, Timestamp, Uuid } from '../schemas/primitives.js';
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
  property_id: Type.Optional(Uuid()),
  from: Type.Optional(Timestamp()),
  to: Type.Optional(Timestamp()),
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
    event_name: Type.Optional(Text(1, 120)),
    event_category: Type.Optional(Text(1, 80)),
    event_source: Type.Optional(Text(1, 80)),
    event_outcome: Type.Optional(Text(1, 80)),
    query: Type.Optional(Text(1, 160)),
    errors_only: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Limit(500)),
  }),
  output_schema: Output({
    events: Type.Array(FreeObject(), { maxItems: 500 }),
    count: Count(),
    limit: Type.Integer({ minimum: 1 }),
    truncated: Type.Boolean(),
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
    granularity: Type.Optional(OneOf(['hour', 'day'])),
    limit_pages: Type.Optional(Limit(100)),
    limit_referrers: Type.Optional(Limit(100)),
    limit_events: Type.Optional(Limit(100)),
    sample_limit: Type.Optional(Type.Integer({ minimum: 100, maximum: 10000 })),
  }),
  output_schema: Output({
    window: FreeObject(),
    totals: FreeObject(),
    top_pages: Type.Array(FreeObject(), { maxItems: 100 }),
    top_referrers: Type.Array(FreeObject(), { maxItems: 100 }),
    events_by_name: Type.Array(FreeObject(), { maxItems: 100 }),
    errors: Type.Array(FreeObject(), { maxItems: 100 }),
    // Hourly: at most 31 days (744 hours, one more at each partial end and a change of summer time);
    // daily: at most 400 days and the partial ends.
    series: Type.Array(FreeObject(), { maxItems: MAX_SERIES_BUCKETS }),
    sample: FreeObject(),
  }),
});

const PROPERTY_OPERATIONS = ['list', 'create', 'update', 'archive'] as const;

/** A site's host name as its pages report it (`example.com`, `shop.example.com`, `127.0.0.1`). */
const Domain = () => Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$' });

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
    operation: OneOf(PROPERTY_OPERATIONS),
    property_id: Type.Optional(Uuid()),
    name: Type.Optional(DisplayText(1, 160)),
    domains: Type.Optional(Type.Array(Domain(), { minItems: 1, maxItems: 20, uniqueItems: true })),
    timezone: Type.Optional(Text(1, 80)),
    retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  }),
  output_schema: Output({
    operation: OneOf(PROPERTY_OPERATIONS),
    property: Type.Optional(FreeObject()),
    properties: Type.Optional(Type.Array(FreeObject(), { maxItems: MAX_ANALYTICS_PROPERTIES })),
    count: Type.Optional(Count()),
  }),
});

/** Analytics capabilities. */
export const analyticsCapabilities = [
  analyticsEventsRead,
  analyticsStatsRead,
  analyticsPropertyManage,
] as const;
