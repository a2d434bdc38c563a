import { type DomainMigration, tenantRowLevelSecurity } from '../domain.js';

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

export const analyticsMigrations: readonly DomainMigration[] = [
  createAnalyticsTables,
  analyticsRowLevelSecurity,
];
