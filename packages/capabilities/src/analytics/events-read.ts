import { contractOf } from '../contract-of.js';
import { defineCapabilityHandler } from '../define.js';
import { propertyToRead, windowOf } from './property.js';

interface EventsInput {
  readonly property_id?: string;
  readonly from?: string;
  readonly to?: string;
  readonly event_name?: string;
  readonly event_category?: string;
  readonly event_source?: string;
  readonly event_outcome?: string;
  readonly query?: string;
  readonly errors_only?: boolean;
  readonly limit?: number;
}

export interface EventRow {
  readonly id: string;
  readonly occurred_at: Date;
  readonly received_at: Date;
  readonly name: string;
  readonly category: string | null;
  readonly source: string | null;
  readonly outcome: string | null;
  readonly host: string | null;
  readonly path: string | null;
  readonly referrer_host: string | null;
  readonly visitor_id: string | null;
  readonly properties: Record<string, unknown>;
}

/** Every filter a nullable parameter; unnamed, so the planner sees which are null. */
const EVENTS = `select id, occurred_at, received_at, name, category, source, outcome, host, path, referrer_host,
  visitor_id, properties
from analytics_events
where organization_id = $1 and property_id = $2 and occurred_at >= $3 and occurred_at < $4
  and ($5::text is null or name = $5) and ($6::text is null or category = $6)
  and ($7::text is null or source = $7) and ($8::text is null or outcome = $8)
  and (not $9::boolean or outcome = 'error')
  and ($10::text is null or name ilike $10 or path ilike $10 or category ilike $10 or source ilike $10
    or outcome ilike $10 or referrer_host ilike $10)
order by occurred_at desc, id limit $11`;

/** An event as analytics.events.read and the stats' sample answer it. */
export function eventRecord(row: EventRow) {
  return {
    id: row.id,
    name: row.name,
    occurred_at: new Date(row.occurred_at).toISOString(),
    received_at: new Date(row.received_at).toISOString(),
    category: row.category,
    source: row.source,
    outcome: row.outcome,
    host: row.host,
    path: row.path,
    referrer_host: row.referrer_host,
    visitor_id: row.visitor_id,
    properties: row.properties,
  };
}

/**
 * `analytics.events.read`: a property's events in the window (default the last 7 days), newest first,
 * filtered; `query` matches part of the name, path, category, source, outcome or referring host;
 * `truncated` says more events matched than `limit` (default 100).
 */
export const analyticsEventsReadHandler = defineCapabilityHandler<EventsInput, unknown>({
  contract: contractOf('analytics.events.read'),
  async handle(input, ctx) {
    const property = await propertyToRead(ctx, input.property_id);
    const { from, to } = windowOf(ctx, input);
    const limit = input.limit ?? 100;
    const pattern = input.query === undefined ? null : `%${input.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const { rows } = await ctx.sql.query<EventRow>(EVENTS, [
      ctx.organizationId,
      property.id,
      from,
      to,
      input.event_name ?? null,
      input.event_category ?? null,
      input.event_source ?? null,
      input.event_outcome ?? null,
      input.errors_only ?? false,
      pattern,
      limit + 1,
    ]);
    const events = rows.slice(0, limit).map(eventRecord);
    return { events, count: events.length, limit, truncated: rows.length > limit };
  },
});
