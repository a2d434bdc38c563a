import { type DomainMigration, tenantKeysCheckedAtCommit, tenantRowLevelSecurity } from '../domain.js';

const TABLES = ['assist_artifacts', 'assist_artifact_versions'] as const;

/**
 * The artifacts' and versions' keys to their organization, checked at commit (`tenantKeysCheckedAtCommit`,
 * src/domain.ts).
 */
export const assistTenantKeysAtCommit: DomainMigration = tenantKeysCheckedAtCommit(
  '20261207000200_assist_tenant_keys_at_commit',
  [
    ['assist_artifacts', 'assist_artifacts_organization_id_fkey'],
    ['assist_artifact_versions', 'assist_artifact_versions_organization_id_fkey'],
  ],
);

/**
 * Artifacts and their immutable versions. `assist_artifacts` holds the current version's content (what
 * lists search and read answers) and its number; `assist_artifact_versions` every version ever saved,
 * never updated. The search vector covers title and current content as words (`simple`: no stemming,
 * the same in every language and on PGlite); GIN-indexed, generated so a filter never recomputes it.
 */
export const createAssistTables: DomainMigration = {
  name: '20261126600000_create_assist_tables',
  up: [
    `create table assist_artifacts (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  title text not null,
  artifact_type text not null,
  source_type text,
  content_format text not null,
  current_version integer not null,
  content text not null,
  sha256 text not null,
  size_bytes integer not null,
  metadata jsonb not null default '{}',
  created_by_installation_id uuid,
  archived_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  search_vector tsvector generated always as (
    to_tsvector('simple'::regconfig, title || ' ' || content)
  ) stored,
  constraint assist_artifacts_pkey primary key (id),
  constraint assist_artifacts_format_check check (content_format in ('text', 'markdown', 'json'))
)`,
    'create index assist_artifacts_org_updated_index on assist_artifacts (organization_id, updated_at desc, id)',
    'create index assist_artifacts_search_index on assist_artifacts using gin (search_vector)',
    `create table assist_artifact_versions (
  organization_id uuid not null references organizations (id) on delete cascade,
  artifact_id uuid not null references assist_artifacts (id) on delete cascade,
  version integer not null,
  content text not null,
  content_format text not null,
  sha256 text not null,
  size_bytes integer not null,
  installation_id uuid,
  created_at timestamptz not null,
  constraint assist_artifact_versions_pkey primary key (artifact_id, version)
)`,
    'create index assist_artifact_versions_org_index on assist_artifact_versions (organization_id, artifact_id, version desc)',
  ],
  down: ['drop table assist_artifact_versions', 'drop table assist_artifacts'],
};

export const assistRowLevelSecurity: DomainMigration = tenantRowLevelSecurity(
  '20261126600100_assist_row_level_security',
  TABLES,
);

export const assistMigrations: readonly DomainMigration[] = [
  createAssistTables,
  assistRowLevelSecurity,
  assistTenantKeysAtCommit,
];
