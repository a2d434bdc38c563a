import { type DomainMigration, tenantKeysCheckedAtCommit, tenantRowLevelSecurity } from '../domain.js';

/**
 * Properties (the sites an organization measures) and their events. An event keeps what the stats
 * need and nothing that identifies a person: the page's host and path (no query string), the referring
 * host, and a visitor id that is a hash of a salt that changes every day (deleted after two days), the
 * property, the client address and user agent — the address itself is never stored, and a visitor
 * cannot be followed from one day to the next. `analytics_salts` belongs to the gateway (no tenant):
 * ingestion runs before any organization is known.
 */
export const createAnalyticsTables: DomainMigration = {
  name: '20261126400000_create_analytics_tables',
  up: [
    `create table analytics_properties (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null,
  domains jsonb not null,
  timezone text not null,
  ingestion_id text not null,
  retention_days integer not null,
  archived_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint analytics_properties_pkey primary key (id),
  constraint analytics_properties_ingestion_unique unique (ingestion_id)
)`,
    'create index analytics_properties_org_index on analytics_properties (organization_id, created_at)',
    `create table analytics_events (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  property_id uuid not null references analytics_properties (id) on delete cascade,
  occurred_at timestamptz not null,
  received_at timestamptz not null,
  name text not null,
  category text,
  source text,
  outcome text,
  host text,
  path text,
  referrer_host text,
  visitor_id text,
  properties jsonb not null default '{}',
  constraint analytics_events_pkey primary key (id)
)`,
    `create index analytics_events_window_index
  on analytics_events (organization_id, property_id, occurred_at desc)`,
    `create table analytics_salts (
  day date not null,
  salt text not null,
  constraint analytics_salts_pkey primary key (day)
)`,
  ],
  down: ['drop table analytics_salts', 'drop table analytics_events', 'drop table analytics_properties'],
};

export const analyticsRowLevelSecurity: DomainMigration = tenantRowLevelSecurity(
  '20261126400100_analytics_row_level_security',
  ['analytics_properties', 'analytics_events'],
);

/**
 * Daily rollups, so stats over a month read a few thousand rows instead of every event. A property's
 * local day (in its time zone) is rolled up once it is over: `analytics_rollup_days` says which days
 * are (and in which time zone), `analytics_rollups` holds the day's results of the stats queries
 * themselves (kind `total`, `referrer`, `page`, `name`, `error`, and `hour` for the hourly series).
 * Visitor ids are scoped to one local day, so the distinct counts of different days add up exactly.
 * An event sent late for a day (its local day is before the day it arrived) leaves a mark in
 * `analytics_rollup_stale`, written with the event, and the day is rolled up again.
 */
export const createAnalyticsRollups: DomainMigration = {
  name: '20261126400200_create_analytics_rollups',
  up: [
    // Visitor ids made before a change of time zone are scoped to the old zone's days: days of the new
    // zone are rolled up from the day after the change on (earlier ones are read from the events).
    'alter table analytics_properties add column timezone_since timestamptz',
    // Visitor ids are hex: byte order is their order, and sorting them (distinct counts, visits) without
    // the locale's rules costs a third less.
    'alter table analytics_events alter column visitor_id type text collate "C"',
    `create table analytics_rollup_days (
  organization_id uuid not null references organizations (id) on delete cascade,
  property_id uuid not null references analytics_properties (id) on delete cascade,
  day date not null,
  timezone text not null,
  starts_at timestamptz not null,
  ends_at timestamptz not null,
  rolled_up_at timestamptz not null,
  constraint analytics_rollup_days_pkey primary key (property_id, day)
)`,
    `create index analytics_rollup_days_window_index
  on analytics_rollup_days (organization_id, property_id, starts_at)`,
    `create table analytics_rollups (
  organization_id uuid not null references organizations (id) on delete cascade,
  property_id uuid not null,
  day date not null,
  kind text not null,
  key text not null,
  key2 text not null default '',
  events integer not null default 0,
  pageviews integer not null default 0,
  errors integer not null default 0,
  visitors integer not null default 0,
  visits integer not null default 0,
  bounces integer not null default 0,
  seconds double precision not null default 0,
  at timestamptz,
  constraint analytics_rollups_pkey primary key (property_id, day, kind, key, key2),
  constraint analytics_rollups_day_fkey foreign key (property_id, day)
    references analytics_rollup_days (property_id, day) on delete cascade
)`,
    `create table analytics_rollup_stale (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  property_id uuid not null references analytics_properties (id) on delete cascade,
  day date not null,
  constraint analytics_rollup_stale_pkey primary key (id)
)`,
    'create index analytics_rollup_stale_day_index on analytics_rollup_stale (property_id, day)',
  ],
  down: [
    'drop table analytics_rollup_stale',
    'drop table analytics_rollups',
    'drop table analytics_rollup_days',
    'alter table analytics_events alter column visitor_id type text collate "default"',
    'alter table analytics_properties drop column timezone_since',
  ],
};

export const analyticsRollupRowLevelSecurity: DomainMigration = tenantRowLevelSecurity(
  '20261126400300_analytics_rollups_row_level_security',
  ['analytics_rollup_days', 'analytics_rollups', 'analytics_rollup_stale'],
);

/**
 * An event's organization needs no foreign key of its own: the event's property belongs to the
 * organization and is deleted with it (cascading to its events), and ingestion copies the organization
 * from the property. The check ran once per inserted event (a lookup in `organizations`), about a sixth
 * of an event's insert on PGlite, where it is the gateway's own CPU (docs/analytics.md).
 */
export const dropEventOrganizationForeignKey: DomainMigration = {
  name: '20261127400000_analytics_events_without_organization_fk',
  up: ['alter table analytics_events drop constraint analytics_events_organization_id_fkey'],
  down: [
    `alter table analytics_events add constraint analytics_events_organization_id_fkey
  foreign key (organization_id) references organizations (id) on delete cascade`,
  ],
};

/**
 * The analytics tables' keys to their organization, checked at commit (`tenantKeysCheckedAtCommit`,
 * src/domain.ts).
 */
export const analyticsTenantKeysAtCommit: DomainMigration = tenantKeysCheckedAtCommit(
  '20261207000600_analytics_tenant_keys_at_commit',
  [
    ['analytics_properties', 'analytics_properties_organization_id_fkey'],
    ['analytics_rollup_days', 'analytics_rollup_days_organization_id_fkey'],
    ['analytics_rollups', 'analytics_rollups_organization_id_fkey'],
    ['analytics_rollup_stale', 'analytics_rollup_stale_organization_id_fkey'],
  ],
);

/**
 * Events go with their property by a trigger instead of a foreign key. The key's check ran once per
 * inserted event (a locked lookup in `analytics_properties`): 3 µs of PostgreSQL's 9 µs per event and
 * 4.5 µs of PGlite's 21, measured with the batch statement alone. The batch insert
 * (`insertEventBatch`) now locks each of its properties once (`for key share`, as the key's check
 * did) and writes only the events of properties that exist, so a property deleted meanwhile either
 * waits for the batch's commit and then deletes its events here, or is gone and gets none.
 */
export const eventsFollowPropertyByTrigger: DomainMigration = {
  name: '20261128400000_analytics_events_deleted_with_property_by_trigger',
  up: [
    `create function analytics_events_delete_of_property() returns trigger language plpgsql as $$
begin
  delete from analytics_events where organization_id = old.organization_id and property_id = old.id;
  return old;
end
$$`,
    `create trigger analytics_properties_delete_events after delete on analytics_properties
  for each row execute function analytics_events_delete_of_property()`,
    'alter table analytics_events drop constraint analytics_events_property_id_fkey',
  ],
  down: [
    `alter table analytics_events add constraint analytics_events_property_id_fkey
  foreign key (property_id) references analytics_properties (id) on delete cascade`,
    'drop trigger analytics_properties_delete_events on analytics_properties',
    'drop function analytics_events_delete_of_property()',
  ],
};

export const analyticsMigrations: readonly DomainMigration[] = [
  createAnalyticsTables,
  analyticsRowLevelSecurity,
  createAnalyticsRollups,
  analyticsRollupRowLevelSecurity,
  dropEventOrganizationForeignKey,
  eventsFollowPropertyByTrigger,
  analyticsTenantKeysAtCommit,
];
