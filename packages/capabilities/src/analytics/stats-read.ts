import { contractOf } from '../contract-of.js';
import { defineCapabilityHandler } from '../define.js';
import { type EventRow, eventRecord } from './events-read.js';
import { propertyToRead, refuse, windowOf } from './property.js';
import { addRaw, addRollups, emptyPart } from './stats-parts.js';

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

/**
 * The rolled-up local days inside the window, in the property's current time zone, without a stale
 * mark. $1 organization, $2 property, $3 time zone, $4 from, $5 to.
 */
const ROLLED_DAYS = `select d.day::text as day, d.starts_at, d.ends_at from analytics_rollup_days d
where d.organization_id = $1 and d.property_id = $2 and d.timezone = $3 and d.starts_at >= $4 and d.ends_at <= $5
  and not exists (select 1 from analytics_rollup_stale s where s.property_id = d.property_id and s.day = d.day)
order by d.starts_at`;

interface RolledDay {
  readonly day: string;
  readonly starts_at: Date;
  readonly ends_at: Date;
}

/** The first unbroken run of rolled-up days (one day's end is the next one's start). */
function firstRun(days: readonly RolledDay[]): RolledDay[] {
  const run: RolledDay[] = [];
  for (const day of days) {
    const last = run.at(-1);
    if (last !== undefined && new Date(last.ends_at).getTime() !== new Date(day.starts_at).getTime()) break;
    run.push(day);
  }
  return run;
}

const byCount =
  <T>(count: (row: T) => number, key: (row: T) => string) =>
  (a: T, b: T) =>
    count(b) - count(a) || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** Hourly series are offered for windows up to 31 days (744 buckets); days for anything longer. */
const MAX_HOURLY_WINDOW_MS = 31 * 86_400_000;

/**
 * `analytics.stats.read`: totals, top pages, top referrers, events by name, errors, a series with every
 * bucket of the window in the property's time zone, and a sample of the newest events. Definitions are
 * in docs/analytics.md. Whole local days that are rolled up come from `analytics_rollups` (see
 * rollup.ts); the rest of the window (its partial first and last day, days not rolled up yet) from the
 * events, with the same queries; the parts add up exactly because a visitor id never spans two days.
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
    // The visits query sorts a day of events or more: in memory, not in temporary files (this
    // transaction only).
    await ctx.sql.query(`set local work_mem = '32MB'`);
    const ids = [ctx.organizationId, property.id] as const;
    const rolled = firstRun(
      (await ctx.sql.query<RolledDay>(ROLLED_DAYS, [...ids, property.timezone, from, to])).rows,
    );
    const part = emptyPart();
    const first = rolled[0];
    const last = rolled.at(-1);
    if (first === undefined || last === undefined) {
      await addRaw(ctx.sql, part, ids, from, to, granularity, property.timezone);
    } else {
      const runStart = new Date(first.starts_at);
      const runEnd = new Date(last.ends_at);
      if (from < runStart) await addRaw(ctx.sql, part, ids, from, runStart, granularity, property.timezone);
      const starts = new Map(rolled.map((day) => [day.day, new Date(day.starts_at)]));
      const endDay = new Date(`${last.day}T00:00:00Z`);
      endDay.setUTCDate(endDay.getUTCDate() + 1);
      await addRollups(
        ctx.sql,
        part,
        ids,
        { firstDay: first.day, endDay: endDay.toISOString().slice(0, 10), starts },
        granularity,
      );
      if (runEnd < to) await addRaw(ctx.sql, part, ids, runEnd, to, granularity, property.timezone);
    }
    const referrers = [...part.referrers].map(([referrer, row]) => ({ referrer, ...row }));
    const visitCount = referrers.reduce((sum, row) => sum + row.visits, 0);
    const bounces = referrers.reduce((sum, row) => sum + row.bounces, 0);
    const seconds = referrers.reduce((sum, row) => sum + row.seconds, 0);
    const sampleLimit = input.sample_limit ?? 100;
    const sample = (await ctx.sql.query<EventRow>(SAMPLE, [...ids, from, to, sampleLimit])).rows.map(
      eventRecord,
    );
    const limitEvents = input.limit_events ?? 10;
    return {
      window: {
        from: from.toISOString(),
        to: to.toISOString(),
        timezone: property.timezone,
        granularity,
        property_id: property.id,
      },
      totals: {
        visitors: part.totals.visitors,
        visits: visitCount,
        pageviews: part.totals.pageviews,
        events: part.totals.events,
        errors: part.totals.errors,
        bounce_rate: visitCount === 0 ? 0 : Math.round((bounces / visitCount) * 10_000) / 10_000,
        visit_duration_seconds: visitCount === 0 ? 0 : Math.round(seconds / visitCount),
      },
      top_pages: [...part.pages]
        .map(([path, row]) => ({ path, ...row }))
        .sort(
          byCount(
            (row) => row.pageviews,
            (row) => row.path,
          ),
        )
        .slice(0, input.limit_pages ?? 10),
      top_referrers: referrers
        .sort(
          byCount(
            (row) => row.visits,
            (row) => row.referrer,
          ),
        )
        .slice(0, input.limit_referrers ?? 10)
        .map(({ referrer, visits, visitors }) => ({ referrer, visits, visitors })),
      events_by_name: [...part.names]
        .map(([name, row]) => ({ name, ...row }))
        .sort(
          byCount(
            (row) => row.events,
            (row) => row.name,
          ),
        )
        .slice(0, limitEvents),
      errors: [...part.errors.values()]
        .sort(
          byCount(
            (row) => row.count,
            (row) => `${row.name}\u0000${row.category ?? ''}`,
          ),
        )
        .slice(0, limitEvents)
        .map((row) => ({ ...row, last_at: row.last_at.toISOString() })),
      series: part.series.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0)),
      sample: { events: sample, count: sample.length, limit: sampleLimit },
    };
  },
});
