import type { SqlStatement } from '../sql.js';

export interface PropertyRow {
  readonly id: string;
  readonly organization_id: string;
  readonly name: string;
  readonly domains: string[];
  readonly timezone: string;
  readonly ingestion_id: string;
  readonly retention_days: number;
  readonly archived_at: Date | null;
  /** When the time zone last changed (null: never). */
  readonly timezone_since: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

const PROPERTY_COLUMNS =
  'id, organization_id, name, domains, timezone, ingestion_id, retention_days, archived_at, timezone_since, created_at, updated_at';

/** $1 organization, $2 id. */
export const selectProperty: SqlStatement = {
  name: 'analytics.property.select',
  text: `select ${PROPERTY_COLUMNS} from analytics_properties where organization_id = $1 and id = $2`,
};

/** The organization's properties, oldest first. $1 organization, $2 include archived. */
export const selectProperties: SqlStatement = {
  name: 'analytics.property.select_all',
  text: `select ${PROPERTY_COLUMNS} from analytics_properties
where organization_id = $1 and ($2::boolean or archived_at is null) order by created_at, id`,
};

/** An active property by its public ingestion id (gateway role: ingestion knows no tenant yet). $1 id. */
export const selectPropertyByIngestionId: SqlStatement = {
  name: 'analytics.property.select_by_ingestion_id',
  text: `select ${PROPERTY_COLUMNS} from analytics_properties where ingestion_id = $1 and archived_at is null`,
};

/** $1 id, $2 organization, $3 name, $4 domains (json text), $5 timezone, $6 ingestion id, $7 retention, $8 now. */
export const insertProperty: SqlStatement = {
  name: 'analytics.property.insert',
  text: `insert into analytics_properties (id, organization_id, name, domains, timezone, ingestion_id, retention_days,
  created_at, updated_at)
values ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $8)
returning ${PROPERTY_COLUMNS}`,
};

/** $1 organization, $2 id, $3 name, $4 domains (json text), $5 timezone, $6 retention, $7 archived_at, $8 now. */
export const updateProperty: SqlStatement = {
  name: 'analytics.property.update',
  text: `update analytics_properties set name = $3, domains = $4::jsonb, timezone = $5, retention_days = $6,
  archived_at = $7, updated_at = $8,
  timezone_since = case when timezone = $5 then timezone_since else $8::timestamptz end
where organization_id = $1 and id = $2
returning ${PROPERTY_COLUMNS}`,
};

/** Today's salt, made by whichever process asks first. $1 day, $2 a new random salt. */
export const upsertSalt: SqlStatement = {
  name: 'analytics.salt.upsert',
  text: `insert into analytics_salts (day, salt) values ($1, $2) on conflict (day) do nothing`,
};

/** $1 day. */
export const selectSalt: SqlStatement = {
  name: 'analytics.salt.select',
  text: 'select salt from analytics_salts where day = $1',
};

/** Salts older than yesterday: with them gone, no visitor id can be recomputed. $1 today. */
export const deleteOldSalts: SqlStatement = {
  name: 'analytics.salt.delete_old',
  text: `delete from analytics_salts where day < $1::date - 1`,
};

/** Events past each property's retention, at most 10 000 per run. $1 now. */
export const deleteExpiredEvents: SqlStatement = {
  name: 'analytics.events.delete_expired',
  text: `delete from analytics_events where id in (
  select e.id from analytics_events e join analytics_properties p on p.id = e.property_id
  where e.occurred_at < $1::timestamptz - make_interval(days => p.retention_days)
  limit 10000)`,
};

/** Rolled-up days that begin before each property's retention (with their rollups). $1 now. */
export const deleteExpiredRollups: SqlStatement = {
  name: 'analytics.rollups.delete_expired',
  text: `delete from analytics_rollup_days d using analytics_properties p
where p.id = d.property_id and d.starts_at < $1::timestamptz - make_interval(days => p.retention_days)`,
};

/**
 * One stored event as the writer sends it, serialized to JSON per batch. The keys are one letter each
 * and a value that is absent is left out (undefined, which JSON.stringify skips; the column is then
 * null): a page view's row is 303 bytes instead of 439, and PostgreSQL's CPU per inserted row fell from
 * about 8 to 5.5 µs (measured on the batch statement alone; docs/analytics.md). Times are ISO 8601
 * strings, not Dates, so JSON.stringify of the batch never calls toJSON.
 */
export interface EventRecord {
  /** id */
  readonly i: string;
  /** property_id (the organization is the property's, taken from its row) */
  readonly p: string;
  /** occurred_at, milliseconds since the epoch; absent when it is `r` */
  readonly t?: number;
  /** received_at, milliseconds since the epoch */
  readonly r: number;
  /** name */
  readonly n: string;
  /** category */
  readonly c: string | undefined;
  /** source */
  readonly s: string | undefined;
  /** outcome */
  readonly u: string | undefined;
  /** host */
  readonly h: string | undefined;
  /** path */
  readonly a: string | undefined;
  /** referrer_host */
  readonly f: string | undefined;
  /** visitor_id */
  readonly v: string | undefined;
  /** properties; absent when there are none */
  readonly x?: Record<string, unknown>;
}

/** A day whose rollup a late event makes stale (see the rollups migration); `day` is YYYY-MM-DD. */
export interface StaleRecord {
  readonly id: string;
  readonly organization_id: string;
  readonly property_id: string;
  readonly day: string;
}

const EVENT_COLUMNS =
  'id, organization_id, property_id, occurred_at, received_at, name, category, source, outcome, host, path, referrer_host, visitor_id, properties';

/**
 * A batch of events and the stale marks of their days in one statement (atomic without a transaction,
 * one round trip, one text so it is prepared once per connection): $1 the events, a JSON array of
 * {@link EventRecord} (its one-letter keys named here), $2 the marks, a JSON array of
 * {@link StaleRecord}, $3 the events' property ids, each once. JSON rather than 14 parameters per row:
 * one JSON.stringify per batch instead of the driver converting every value, and a text that does not
 * depend on the batch size.
 * A row carries only what differs between events: times as numbers (`to_timestamp` of a number is far
 * cheaper than parsing a timestamp's text, twice per row), no organization (the property's row has
 * it), no occurred time when it is the received one and no empty properties. On PGlite that took an
 * event's insert from about 22 to 17–19 µs (docs/analytics.md, "Fourth round").
 * Only events of a property that still exists are written (the row count says how many): the
 * properties are locked once, as a foreign key's check would lock one for every event, so a concurrent
 * delete of a property waits for this commit and then deletes these events with it (migration
 * `eventsFollowPropertyByTrigger`).
 */
export const insertEventBatch: SqlStatement = {
  name: 'analytics.events.insert_batch',
  text: `with marks as (
  insert into analytics_rollup_stale (id, organization_id, property_id, day)
  select id, organization_id, property_id, day from json_populate_recordset(null::analytics_rollup_stale, $2::json)
)
insert into analytics_events (${EVENT_COLUMNS})
select e.i, property.organization_id, e.p, to_timestamp(coalesce(e.t, e.r) / 1000), to_timestamp(e.r / 1000),
  e.n, e.c, e.s, e.u, e.h, e.a, e.f, e.v, coalesce(e.x, '{}')
from json_to_recordset($1::json) as e(i uuid, p uuid, t float8, r float8, n text, c text, s text, u text,
  h text, a text, f text, v text, x jsonb)
join (select id, organization_id from analytics_properties where id = any ($3::uuid[]) for key share) as property
  on property.id = e.p`,
};
