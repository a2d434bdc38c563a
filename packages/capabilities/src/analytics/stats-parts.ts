import type { Sql } from '../sql.js';
import { ERRORS, EVENTS_BY_NAME, SERIES, TOP_PAGES, TOTALS, VISITS_BY_REFERRER } from './stats-sql.js';

/** No limit: parts are merged before the top lists are cut. */
export const ALL_ROWS = 2_147_483_647;

export interface Bucket {
  readonly local_start: string;
  readonly start: string;
  readonly pageviews: number;
  readonly visitors: number;
  readonly events: number;
  readonly errors: number;
}

/**
 * The stats of some stretch of a window, in a shape that adds up: the stretches are different local
 * days of the property, and a visitor id never spans two of them, so distinct visitors add up too.
 */
export interface StatsPart {
  readonly totals: { events: number; pageviews: number; errors: number; visitors: number };
  readonly referrers: Map<string, { visits: number; visitors: number; bounces: number; seconds: number }>;
  readonly pages: Map<string, { pageviews: number; visitors: number }>;
  readonly names: Map<string, { events: number; visitors: number }>;
  readonly errors: Map<string, { name: string; category: string | null; count: number; last_at: Date }>;
  readonly series: Bucket[];
}

export function emptyPart(): StatsPart {
  return {
    totals: { events: 0, pageviews: 0, errors: 0, visitors: 0 },
    referrers: new Map(),
    pages: new Map(),
    names: new Map(),
    errors: new Map(),
    series: [],
  };
}

function add<V extends Record<string, number>>(map: Map<string, V>, key: string, value: V): void {
  const current = map.get(key) as Record<string, number> | undefined;
  if (current === undefined) map.set(key, { ...value });
  else for (const [field, amount] of Object.entries(value)) current[field] = (current[field] ?? 0) + amount;
}

function addError(part: StatsPart, name: string, category: string | null, count: number, at: Date): void {
  const key = `${name}\u0000${category ?? ''}`;
  const current = part.errors.get(key);
  if (current === undefined) part.errors.set(key, { name, category, count, last_at: at });
  else {
    current.count += count;
    if (at > current.last_at) current.last_at = at;
  }
}

/** Adds the raw events of [from, to) to `part`: the stats queries themselves, without limits. */
export async function addRaw(
  sql: Sql,
  part: StatsPart,
  ids: readonly [string, string],
  from: Date,
  to: Date,
  granularity: 'hour' | 'day',
  timezone: string,
): Promise<void> {
  const query = <Row>(text: string, extra: unknown[] = []) =>
    sql.query<Row>(text, [...ids, from, to, ...extra]).then((result) => result.rows);
  const [totals] = await query<StatsPart['totals']>(TOTALS);
  for (const field of ['events', 'pageviews', 'errors', 'visitors'] as const)
    part.totals[field] += totals?.[field] ?? 0;
  for (const row of await query<{
    referrer: string;
    visits: number;
    visitors: number;
    bounces: number;
    seconds: number;
  }>(VISITS_BY_REFERRER)) {
    add(part.referrers, row.referrer, {
      visits: row.visits,
      visitors: row.visitors,
      bounces: row.bounces,
      seconds: row.seconds,
    });
  }
  for (const row of await query<{ path: string; pageviews: number; visitors: number }>(TOP_PAGES, [
    ALL_ROWS,
  ])) {
    add(part.pages, row.path, { pageviews: row.pageviews, visitors: row.visitors });
  }
  for (const row of await query<{ name: string; events: number; visitors: number }>(EVENTS_BY_NAME, [
    ALL_ROWS,
  ])) {
    add(part.names, row.name, { events: row.events, visitors: row.visitors });
  }
  for (const row of await query<{ name: string; category: string | null; count: number; last_at: Date }>(
    ERRORS,
    [ALL_ROWS],
  )) {
    addError(part, row.name, row.category, row.count, new Date(row.last_at));
  }
  for (const bucket of await query<Bucket & { start: Date }>(SERIES, [granularity, timezone])) {
    part.series.push({ ...bucket, start: new Date(bucket.start).toISOString() });
  }
}

/** Local days [firstDay, endDay) that are rolled up, summed per kind and key in the database. */
const ROLLUPS = `select kind, key, key2, sum(events)::int as events, sum(pageviews)::int as pageviews,
  sum(errors)::int as errors, sum(visitors)::int as visitors, sum(visits)::int as visits,
  sum(bounces)::int as bounces, sum(seconds)::float8 as seconds, max(at) as at
from analytics_rollups
where organization_id = $1 and property_id = $2 and day >= $3::date and day < $4::date and kind <> 'hour'
  and kind <> 'total'
group by kind, key, key2`;

/** The buckets of [firstDay, endDay): a day's `total` row, or its `hour` rows. $5 the kind. */
const ROLLUP_BUCKETS = `select day::text as day, key, events, pageviews, errors, visitors, at
from analytics_rollups
where organization_id = $1 and property_id = $2 and day >= $3::date and day < $4::date and kind = $5
order by day, at`;

interface RollupRow {
  readonly kind: string;
  readonly key: string;
  readonly key2: string;
  readonly events: number;
  readonly pageviews: number;
  readonly errors: number;
  readonly visitors: number;
  readonly visits: number;
  readonly bounces: number;
  readonly seconds: number;
  readonly at: Date | null;
}

/** Adds the rolled-up local days [firstDay, endDay) to `part`. */
export async function addRollups(
  sql: Sql,
  part: StatsPart,
  ids: readonly [string, string],
  days: { firstDay: string; endDay: string; starts: Map<string, Date> },
  granularity: 'hour' | 'day',
): Promise<void> {
  const range = [...ids, days.firstDay, days.endDay];
  for (const row of (await sql.query<RollupRow>(ROLLUPS, range)).rows) {
    if (row.kind === 'referrer') {
      add(part.referrers, row.key, {
        visits: row.visits,
        visitors: row.visitors,
        bounces: row.bounces,
        seconds: row.seconds,
      });
    } else if (row.kind === 'page') {
      add(part.pages, row.key, { pageviews: row.pageviews, visitors: row.visitors });
    } else if (row.kind === 'name') {
      add(part.names, row.key, { events: row.events, visitors: row.visitors });
    } else if (row.kind === 'error') {
      addError(part, row.key, row.key2 === '' ? null : row.key2, row.errors, new Date(row.at as Date));
    }
  }
  const buckets = await sql.query<RollupRow & { day: string }>(ROLLUP_BUCKETS, [
    ...range,
    granularity === 'day' ? 'total' : 'hour',
  ]);
  for (const row of buckets.rows) {
    if (granularity === 'day') {
      for (const field of ['events', 'pageviews', 'errors', 'visitors'] as const)
        part.totals[field] += row[field];
    }
    part.series.push({
      local_start: granularity === 'day' ? `${row.day}T00:00:00` : row.key,
      start: (granularity === 'day'
        ? (days.starts.get(row.day) as Date)
        : new Date(row.at as Date)
      ).toISOString(),
      pageviews: row.pageviews,
      visitors: row.visitors,
      events: row.events,
      errors: row.errors,
    });
  }
  if (granularity === 'hour') {
    // The totals are in the days' `total` rows.
    const totals = await sql.query<RollupRow>(ROLLUP_BUCKETS, [...range, 'total']);
    for (const row of totals.rows) {
      for (const field of ['events', 'pageviews', 'errors', 'visitors'] as const)
        part.totals[field] += row[field];
    }
  }
}
