import { type DomainMigration, tenantKeysCheckedAtCommit, tenantRowLevelSecurity } from '../domain.js';

/**
 * Documents uploaded through `documents.document.upload`, content in the row (bytea, at most 10 MiB;
 * PostgreSQL moves values that large to TOAST storage, so scans of the other columns stay cheap).
 *
 * Tenancy: `organization_id` comes from the verified installation key, never from params; every
 * lookup is by `(organization_id, …)`, hence the composite indexes. `installation_id` records which
 * installation uploaded it. `sha256` is lower-case hex of the content, kept for integrity checks and
 * deduplication by readers; identical content uploaded twice with different idempotency keys is two rows.
 *
 * The name is the one the gateway published this migration under (it lived in apps/gateway before the
 * domain owned it): deployments that applied it see it as applied. The SQL is what knex's schema
 * builder generated for it, constraint and index names included.
 */
export const createDocuments: DomainMigration = {
  name: '20261123010000_create_documents',
  up: [
    `create table documents (
  id uuid not null default gen_random_uuid(),
  organization_id uuid not null,
  installation_id uuid not null,
  file_name text not null,
  mime_type text not null,
  size_bytes integer not null,
  sha256 text not null,
  content bytea not null,
  created_at timestamptz not null default current_timestamp,
  constraint documents_pkey primary key (id),
  constraint documents_organization_id_foreign foreign key (organization_id)
    references organizations (id) on delete cascade,
  constraint documents_installation_id_foreign foreign key (installation_id) references installations (id),
  constraint documents_size_check check (size_bytes >= 0 and size_bytes = octet_length(content)),
  constraint documents_sha256_check check (sha256 ~ '^[0-9a-f]{64}$')
)`,
    'create index documents_organization_id_created_at_index on documents (organization_id, created_at)',
    'create index documents_organization_id_sha256_index on documents (organization_id, sha256)',
  ],
  down: ['drop table documents'],
};

/**
 * The runtime role `agw_runtime` (created by the gateway's migration `20261125000000_runtime_role`)
 * reads and writes documents of the organization its transaction is set to, and no other: a handler
 * whose query forgets `where organization_id = …` still sees only its own rows.
 */
export const documentsRowLevelSecurity: DomainMigration = tenantRowLevelSecurity(
  '20261125010000_documents_row_level_security',
  ['documents'],
);

/**
 * The documents' keys to their organization and installation, checked at commit
 * (`tenantKeysCheckedAtCommit`, src/domain.ts).
 */
export const documentsTenantKeysAtCommit: DomainMigration = tenantKeysCheckedAtCommit(
  '20261207000100_documents_tenant_keys_at_commit',
  [
    ['documents', 'documents_organization_id_foreign'],
    ['documents', 'documents_installation_id_foreign'],
  ],
);

/**
 * Every upload wrote an entry into `(organization_id, sha256)`, an index no statement reads: the domain
 * has no lookup by content hash (no deduplication, no "find by checksum"). A capability that needs one
 * adds it back with its query.
 */
export const documentsUnreadHashIndex: DomainMigration = {
  name: '20261208000100_documents_unread_hash_index',
  up: ['drop index documents_organization_id_sha256_index'],
  down: ['create index documents_organization_id_sha256_index on documents (organization_id, sha256)'],
};

/**
 * The same rule for `sha256`, cheaper to check: 64 bytes, each a lower-case hex digit. With the bounded
 * repetition (`{64}`) the check was 6–10 µs of each upload's insert (pgbench, the insert alone: 40 µs
 * with it, 35–38 with this one, 30–34 without a check).
 */
export const documentsCheaperHashCheck: DomainMigration = {
  name: '20261210000100_documents_cheaper_hash_check',
  up: [
    `alter table documents drop constraint documents_sha256_check,
  add constraint documents_sha256_check check (octet_length(sha256) = 64 and sha256 ~ '^[0-9a-f]*$') not valid`,
    'alter table documents validate constraint documents_sha256_check',
  ],
  down: [
    `alter table documents drop constraint documents_sha256_check,
  add constraint documents_sha256_check check (sha256 ~ '^[0-9a-f]{64}$')`,
  ],
};

/** The documents domain's migrations, oldest first. */
export const documentsMigrations: readonly DomainMigration[] = [
  createDocuments,
  documentsRowLevelSecurity,
  documentsTenantKeysAtCommit,
  documentsUnreadHashIndex,
  documentsCheaperHashCheck,
];
