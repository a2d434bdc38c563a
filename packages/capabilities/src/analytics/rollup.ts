import type { Sql, SqlDatabase } from '../sql.js';
import { ALL_ROWS } from './stats-parts.js';
import { ERRORS, EVENTS_BY_NAME, SERIES, TOP_PAGES, TOTALS, VISITS_BY_REFERRER } from './stats-sql.js';

/** A day is rolled up this long after it ended: rows still queued in a writer have landed by then. */
const SETTLE = "interval '15 minutes'";
/** Days rolled up per property and run, so a first run over a long history stays short. */
const DAYS_PER_RUN = 62;

interface PropertyToRoll {
  readonly id: string;
  readonly organization_id: string;
  readonly timezone: string;
  readonly retention_days: number;
  readonly timezone_since: Date | null;
}

/**
 * The properties with work: a stale mark, or their last settled local day not rolled up in their
 * current time zone (days are rolled up oldest first, so that day is the last one a property gets).
 * Between two local midnights a run is this one statement, however many properties there are. $1 now.
 */
const PROPERTIES_TO_ROLL = `select id, organization_id, timezone, retention_days, timezone_since
from analytics_properties p
where exists (select 1 from analytics_rollup_stale s where s.property_id = p.id)
  or not exists (select 1 from analytics_rollup_days r where r.property_id = p.id
    and r.day = (($1::timestamptz - ${SETTLE}) at time zone p.timezone)::date - 1 and r.timezone = p.timezone)`;

/**
 * Local days of a property that are over (and settled) and not rolled up in its current time zone,
 * from its oldest kept event on (and from the day after its last change of time zone), oldest first.
 * $1 organization, $2 property, $3 time zone, $4 now, $5 retention days, $6 limit, $7 timezone_since.
 */
const DAYS_TO_ROLL = `select d::date::text as day
from generate_series(
  greatest(
    ((select greatest(min(occurred_at), $4::timestamptz - make_interval(days => $5::int)) from analytics_events
      where organization_id = $1 and property_id = $2) at time zone $3)::date,
    coalesce(($7::timestamptz at time zone $3)::date + 1, date '1970-01-01')),
  (($4::timestamptz - ${SETTLE}) at time zone $3)::date - 1,
  interval '1 day') as d
where not exists (select 1 from analytics_rollup_days r
  where r.property_id = $2 and r.day = d::date and r.timezone = $3)
order by 1 limit $6`;

/** $1 property. */
const STALE = 'select id, day::text as day from analytics_rollup_stale where property_id = $1';

/**
 * The stats queries over one local day, written as rollup rows. The day's bounds are the stats
 * queries' window ($3, $4); each statement names its own parameter for the day.
 */
const ROLL_STATEMENTS: ReadonlyArray<{ text: string; extra: (day: string, timezone: string) => unknown[] }> =
  [
    {
      text: `insert into analytics_rollups (organization_id, property_id, day, kind, key, events, pageviews, errors,
  visitors) select $1, $2, $5::date, 'total', '', events, pageviews, errors, visitors from (${TOTALS}) t`,
      extra: (day) => [day],
    },
    {
      text: `insert into analytics_rollups (organization_id, property_id, day, kind, key, visits, visitors, bounces,
  seconds) select $1, $2, $5::date, 'referrer', referrer, visits, visitors, bounces, seconds
from (${VISITS_BY_REFERRER}) t`,
      extra: (day) => [day],
    },
    {
      text: `insert into analytics_rollups (organization_id, property_id, day, kind, key, pageviews, visitors)
select $1, $2, $6::date, 'page', path, pageviews, visitors from (${TOP_PAGES}) t`,
      extra: (day) => [ALL_ROWS, day],
    },
    {
      text: `insert into analytics_rollups (organization_id, property_id, day, kind, key, events, visitors)
select $1, $2, $6::date, 'name', name, events, visitors from (${EVENTS_BY_NAME}) t`,
      extra: (day) => [ALL_ROWS, day],
    },
    {
      text: `insert into analytics_rollups (organization_id, property_id, day, kind, key, key2, errors, at)
select $1, $2, $6::date, 'error', name, coalesce(category, ''), count, last_at from (${ERRORS}) t`,
      extra: (day) => [ALL_ROWS, day],
    },
    {
      text: `insert into analytics_rollups (organization_id, property_id, day, kind, key, pageviews, visitors, events,
  errors, at) select $1, $2, $7::date, 'hour', local_start, pageviews, visitors, events, errors, start
from (${SERIES}) t`,
      extra: (day, timezone) => ['hour', timezone, day],
    },
  ];

/** $1 organization, $2 property, $3 day, $4 time zone, $5 now. */
const INSERT_DAY = `insert into analytics_rollup_days (organization_id, property_id, day, timezone, starts_at, ends_at,
  rolled_up_at)
values ($1, $2, $3::date, $4, $3::date::timestamp at time zone $4, ($3::date + 1)::timestamp at time zone $4, $5)
on conflict (property_id, day) do nothing
returning starts_at, ends_at`;

async function rollDay(sql: Sql, property: PropertyToRoll, day: string, now: Date): Promise<void> {
  const ids = [property.organization_id, property.id];
  // Cascades to the day's rollups: a stale day, or one of another time zone, is made again.
  await sql.query('delete from analytics_rollup_days where property_id = $1 and day = $2::date', [
    property.id,
    day,
  ]);
  const bounds = (
    await sql.query<{ starts_at: Date; ends_at: Date }>(INSERT_DAY, [...ids, day, property.timezone, now])
  ).rows[0];
  // Another gateway process rolled this day up meanwhile (it waited for that one's commit).
  if (bounds === undefined) return;
  for (const statement of ROLL_STATEMENTS) {
    await sql.query(statement.text, [
      ...ids,
      bounds.starts_at,
      bounds.ends_at,
      ...statement.extra(day, property.timezone),
    ]);
  }
}

/**
 * The rollup task: for every property with work, the days stale marks name (rolled up again if they were; the
 * marks they saw are deleted after), then the days that are over and not rolled up yet. One day per
 * transaction; of two processes rolling up the same day at once, the second finds it done.
 */
export async function rollUp(database: SqlDatabase, now: Date): Promise<number> {
  let rolled = 0;
  const { rows: properties } = await database.query<PropertyToRoll>(PROPERTIES_TO_ROLL, [now]);
  for (const property of properties) {
    const marks = (await database.query<{ id: string; day: string }>(STALE, [property.id])).rows;
    const staleDays = [...new Set(marks.map((mark) => mark.day))];
    for (const day of staleDays) {
      const { rows: made } = await database.query(
        'select 1 from analytics_rollup_days where property_id = $1 and day = $2::date',
        [property.id, day],
      );
      // A day not rolled up yet will be, with the late events in it.
      if (made.length > 0) {
        await database.transaction((sql) => rollDay(sql, property, day, now));
        rolled += 1;
      }
    }
    if (marks.length > 0) {
      await database.query('delete from analytics_rollup_stale where id = any($1::uuid[])', [
        marks.map((mark) => mark.id),
      ]);
    }
    const { rows: days } = await database.query<{ day: string }>(DAYS_TO_ROLL, [
      property.organization_id,
      property.id,
      property.timezone,
      now,
      property.retention_days,
      DAYS_PER_RUN,
      property.timezone_since,
    ]);
    for (const { day } of days) {
      await database.transaction((sql) => rollDay(sql, property, day, now));
      rolled += 1;
    }
  }
  return rolled;
}
