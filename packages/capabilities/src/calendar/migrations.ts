import { type DomainMigration, tenantKeysCheckedAtCommit, tenantRowLevelSecurity } from '../domain.js';

const TABLES = [
  'calendar_calendars',
  'calendar_availability_rules',
  'calendar_event_types',
  'calendar_link_templates',
  'calendar_booking_links',
  'calendar_bookings',
] as const;

/**
 * The calendar domain's tables. Every row carries `organization_id` (from the installation key, never
 * from params); lookups start with it, hence the composite indexes.
 *
 * No double booking is a database rule, not a check-then-insert: `calendar_bookings_no_overlap` is an
 * exclusion constraint over the time a booking blocks (`blocked_from`..`blocked_until`: the meeting
 * with its event type's buffers; plain columns because `timestamptz - interval` is not immutable) per calendar, for
 * every booking that is not cancelled. Two transactions inserting overlapping bookings cannot both
 * commit, whichever gateway process runs them. The `calendar_id with =` part needs btree_gist (a
 * trusted contrib extension on PostgreSQL 13+; PGlite 0.5 ships it and the gateway loads it).
 *
 * Link slugs are unique across organizations: the public page resolves `/book/{slug}` before it knows
 * the organization. A secret link stores only the SHA-256 of its secret.
 */
export const createCalendarTables: DomainMigration = {
  name: '20261126300000_create_calendar',
  up: [
    'create extension if not exists btree_gist',
    `create table calendar_calendars (
  id uuid not null primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null,
  slug text not null,
  color text,
  is_active boolean not null default true,
  is_default boolean not null default false,
  timezone text not null default 'UTC',
  locale text not null default 'en' check (locale in ('en', 'de')),
  notification_email text,
  default_duration_minutes integer not null default 30 check (default_duration_minutes between 5 and 720),
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp,
  constraint calendar_calendars_slug_unique unique (organization_id, slug)
)`,
    `create unique index calendar_calendars_one_default on calendar_calendars (organization_id) where is_default`,
    `create table calendar_availability_rules (
  id uuid not null primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  calendar_id uuid not null references calendar_calendars (id) on delete cascade,
  day_of_week integer not null check (day_of_week between 0 and 6),
  start_time time not null,
  end_time time not null,
  timezone text not null,
  position integer not null,
  constraint calendar_availability_rules_order check (start_time < end_time)
)`,
    'create index calendar_availability_rules_calendar on calendar_availability_rules (organization_id, calendar_id)',
    `create table calendar_event_types (
  id uuid not null primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  calendar_id uuid not null references calendar_calendars (id) on delete cascade,
  name text not null,
  duration_minutes integer not null check (duration_minutes between 5 and 720),
  buffer_before_minutes integer not null default 0 check (buffer_before_minutes between 0 and 240),
  buffer_after_minutes integer not null default 0 check (buffer_after_minutes between 0 and 240),
  location text,
  meeting_url text,
  description text,
  status text not null default 'active' check (status in ('active', 'archived')),
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp
)`,
    'create index calendar_event_types_calendar on calendar_event_types (organization_id, calendar_id)',
    `create table calendar_link_templates (
  id uuid not null primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  calendar_id uuid not null references calendar_calendars (id) on delete cascade,
  name text not null,
  slug_base text not null,
  default_title text not null,
  default_intro text,
  default_valid_days integer not null default 14,
  default_one_time_use boolean not null default true,
  allowed_event_type_ids jsonb not null default '[]',
  email_binding_required boolean not null default false,
  phone_required boolean not null default false,
  booking_window_days integer not null default 60,
  min_notice_minutes integer not null default 120,
  slot_limit integer not null default 60,
  status text not null default 'active' check (status in ('active', 'paused', 'archived')),
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp
)`,
    'create index calendar_link_templates_org on calendar_link_templates (organization_id, created_at)',
    `create table calendar_booking_links (
  id uuid not null primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  installation_id uuid not null references installations (id),
  calendar_id uuid not null references calendar_calendars (id) on delete cascade,
  template_id uuid references calendar_link_templates (id),
  slug text not null,
  access_mode text not null check (access_mode in ('public', 'secret')),
  secret_sha256 bytea,
  secret_issued_at timestamptz,
  title text not null,
  intro text,
  recipient_email text,
  recipient_name text,
  recipient_account_id text,
  project_id text,
  valid_until timestamptz,
  one_time_use boolean not null,
  status text not null default 'active' check (status in ('active', 'expired', 'revoked', 'booked')),
  allowed_event_type_ids jsonb not null default '[]',
  email_binding_required boolean not null default false,
  phone_required boolean not null default false,
  booking_window_days integer not null default 60,
  min_notice_minutes integer not null default 120,
  slot_limit integer not null default 60,
  rules_json jsonb,
  context jsonb,
  booked_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp,
  constraint calendar_booking_links_slug_unique unique (slug),
  constraint calendar_booking_links_email_binding check (not email_binding_required or recipient_email is not null)
)`,
    'create index calendar_booking_links_org on calendar_booking_links (organization_id, created_at)',
    `create table calendar_bookings (
  id uuid not null primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  calendar_id uuid not null references calendar_calendars (id) on delete cascade,
  link_id uuid references calendar_booking_links (id),
  event_type_id uuid references calendar_event_types (id),
  title text not null,
  notes text,
  booker_name text not null,
  booker_email text not null,
  booker_phone text,
  booker_timezone text not null,
  organizer_name text not null,
  organizer_email text,
  location text,
  meeting_url text,
  start_at timestamptz not null,
  end_at timestamptz not null,
  blocked_from timestamptz not null,
  blocked_until timestamptz not null,
  status text not null default 'confirmed' check (status in ('confirmed', 'cancelled', 'no_show')),
  sequence integer not null default 0,
  cancelled_reason text,
  cancelled_at timestamptz,
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp,
  constraint calendar_bookings_order check (start_at < end_at),
  constraint calendar_bookings_blocked_covers check (blocked_from <= start_at and blocked_until >= end_at),
  constraint calendar_bookings_no_overlap exclude using gist (
    calendar_id with =,
    tstzrange(blocked_from, blocked_until, '[)') with &&
  ) where (status <> 'cancelled')
)`,
    'create index calendar_bookings_calendar_start on calendar_bookings (organization_id, calendar_id, start_at)',
  ],
  down: [...TABLES].reverse().map((table) => `drop table ${table}`),
};

/** The runtime role reads and writes its own organization's calendar rows, and no other's. */
export const calendarRowLevelSecurity: DomainMigration = tenantRowLevelSecurity(
  '20261126300100_calendar_row_level_security',
  TABLES,
);

/**
 * The caps that keep public booking pages from being a mail relay (docs/calendar.md, "Caps"): a link
 * may set its own bookings per hour (null: the gateway's default), and the caps count the bookings of
 * the last hour in the database, so every gateway process on one database sees the same count. The
 * index serves those counts: an organization's bookings by creation time.
 */
export const calendarPublicBookingCaps: DomainMigration = {
  name: '20261129300000_calendar_public_booking_caps',
  up: [
    `alter table calendar_booking_links add column bookings_per_hour integer
  check (bookings_per_hour between 1 and 1000)`,
    'create index calendar_bookings_org_created on calendar_bookings (organization_id, created_at)',
  ],
  down: [
    'drop index calendar_bookings_org_created',
    'alter table calendar_booking_links drop column bookings_per_hour',
  ],
};

/**
 * The calendar tables' keys to their organization (and a booking link's to its installation), checked at
 * commit (`tenantKeysCheckedAtCommit`, src/domain.ts).
 */
export const calendarTenantKeysAtCommit: DomainMigration = tenantKeysCheckedAtCommit(
  '20261207000500_calendar_tenant_keys_at_commit',
  [
    ['calendar_calendars', 'calendar_calendars_organization_id_fkey'],
    ['calendar_availability_rules', 'calendar_availability_rules_organization_id_fkey'],
    ['calendar_event_types', 'calendar_event_types_organization_id_fkey'],
    ['calendar_link_templates', 'calendar_link_templates_organization_id_fkey'],
    ['calendar_booking_links', 'calendar_booking_links_organization_id_fkey'],
    ['calendar_bookings', 'calendar_bookings_organization_id_fkey'],
    ['calendar_booking_links', 'calendar_booking_links_installation_id_fkey'],
  ],
);

/** The calendar domain's migrations, oldest first. */
export const calendarMigrations: readonly DomainMigration[] = [
  createCalendarTables,
  calendarRowLevelSecurity,
  calendarPublicBookingCaps,
  calendarTenantKeysAtCommit,
];
