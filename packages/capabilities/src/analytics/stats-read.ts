import { contractOf } from '../contract-of.js';
import { defineCapabilityHandler } from '../define.js';
import { type EventRow, eventRecord } from './events-read.js';
import { propertyToRead, refuse, windowOf } from './property.js';
import { ERRORS, EVENTS_BY_NAME, SERIES, TOP_PAGES, TOTALS, VISITS_BY_REFERRER } from './stats-sql.js';

interface StatsInput {
  readonly property_id?: string;
  readonly from?: string;
  readonly to?: string;
  readonly granularity?: 'hour' | 'day';
  readonly limit_pages?: number;
  readonly limit_referrers?: number;
  readonly limit_events?: number;
  readonly sample_limit?: number;
}

const SAMPLE = `select id, occurred_at, received_at, name, category, source, outcome, host, path, referrer_host,
  visitor_id, properties
from analytics_events
where organization_id = $1 and property_id = $2 and occurred_at >= $3 and occurred_at < $4
order by occurred_at desc, id limit $5`;

/** Hourly series are offered for windows up to 31 days (744 buckets); days for anything longer. */
const MAX_HOURLY_WINDOW_MS = 31 * 86_400_000;

/**
 * `analytics.stats.read`: totals, top pages, top referrers, events by name, errors, a series with every
 * bucket of the window in the property's time zone, and a sample of the newest events. Definitions are
 * in docs/analytics.md.
 */
export const analyticsStatsReadHandler = defineCapabilityHandler<StatsInput, unknown>({
  contract: contractOf('analytics.stats.read'),
  async handle(input, ctx) {
    const property = await propertyToRead(ctx, input.property_id);
    const { from, to } = windowOf(ctx, input);
    const granularity =
      input.granularity ?? (to.getTime() - from.getTime() > 2 * 86_400_000 ? 'day' : 'hour');
    if (granularity === 'hour' && to.getTime() - from.getTime() > MAX_HOURLY_WINDOW_MS) {
      refuse('/params/granularity', 'hour is offered for windows of up to 31 days; use day');
    }
    const base = [ctx.organizationId, property.id, from, to];
    const query = <Row>(text: string, extra: unknown[] = []) => ctx.sql.query<Row>(text, [...base, ...extra]);
    const [totals] = (
      await query<{ events: number; pageviews: number; errors: number; visitors: number }>(TOTALS)
    ).rows;
    const referrers = (
      await query<{ referrer: string; visits: number; visitors: number; bounces: number; seconds: number }>(
        VISITS_BY_REFERRER,
      )
    ).rows;
    const visitCount = referrers.reduce((sum, row) => sum + row.visits, 0);
    const bounces = referrers.reduce((sum, row) => sum + row.bounces, 0);
    const seconds = referrers.reduce((sum, row) => sum + row.seconds, 0);
    const sampleLimit = input.sample_limit ?? 100;
    const sample = (await query<EventRow>(SAMPLE, [sampleLimit])).rows.map(eventRecord);
    const series = (
      await query<{
        local_start: string;
        start: Date;
        pageviews: number;
        visitors: number;
        events: number;
        errors: number;
      }>(SERIES, [granularity, property.timezone])
    ).rows.map((bucket) => ({ ...bucket, start: new Date(bucket.start).toISOString() }));
    return {
      window: {
        from: from.toISOString(),
        to: to.toISOString(),
        timezone: property.timezone,
        granularity,
        property_id: property.id,
      },
      totals: {
        visitors: totals?.visitors ?? 0,
        visits: visitCount,
        pageviews: totals?.pageviews ?? 0,
        events: totals?.events ?? 0,
        errors: totals?.errors ?? 0,
        bounce_rate: visitCount === 0 ? 0 : Math.round((bounces / visitCount) * 10_000) / 10_000,
        visit_duration_seconds: visitCount === 0 ? 0 : Math.round(seconds / visitCount),
      },
      top_pages: (await query(TOP_PAGES, [input.limit_pages ?? 10])).rows,
      top_referrers: referrers
        .sort((a, b) => b.visits - a.visits || (a.referrer < b.referrer ? -1 : 1))
        .slice(0, input.limit_referrers ?? 10)
        .map(({ referrer, visits, visitors }) => ({ referrer, visits, visitors })),
      events_by_name: (await query(EVENTS_BY_NAME, [input.limit_events ?? 10])).rows,
      errors: (await query<{ last_at: Date }>(ERRORS, [input.limit_events ?? 10])).rows.map((row) => ({
        ...row,
        last_at: new Date(row.last_at).toISOString(),
      })),
      series,
      sample: { events: sample, count: sample.length, limit: sampleLimit },
    };
  },
});
