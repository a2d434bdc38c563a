import { type DomainMigration, tenantKeysCheckedAtCommit, tenantRowLevelSecurity } from '../../domain.js';

const TABLES = ['billing_document_archive', 'billing_document_deliveries'] as const;

/**
 * The archive's and deliveries' keys to their organization, checked at commit
 * (`tenantKeysCheckedAtCommit`, src/domain.ts).
 */
export const billingOutputTenantKeysAtCommit: DomainMigration = tenantKeysCheckedAtCommit(
  '20261207000400_billing_output_tenant_keys_at_commit',
  [
    ['billing_document_archive', 'billing_document_archive_organization_id_fkey'],
    ['billing_document_deliveries', 'billing_document_deliveries_organization_id_fkey'],
  ],
);

/**
 * What the outputs keep: the first rendering of an issued document per format (the archive: later
 * calls answer these bytes, so a document reads the same in five years), and every mail that sent one.
 * An account says which e-invoice its recipient wants; a document remembers when it was last sent.
 */
export const createBillingOutputTables: DomainMigration = {
  name: '20261126200000_create_billing_output_tables',
  up: [
    `create table billing_document_archive (
  organization_id uuid not null references organizations (id) on delete cascade,
  document_id uuid not null,
  format text not null,
  filename text not null,
  mime_type text not null,
  content bytea not null,
  sha256 text not null,
  size_bytes integer not null,
  details jsonb not null,
  stored_at timestamptz not null,
  constraint billing_document_archive_pkey primary key (organization_id, document_id, format),
  constraint billing_document_archive_document_fkey foreign key (document_id)
    references billing_documents (id) on delete cascade,
  constraint billing_document_archive_format_check check (format in ('pdf', 'xrechnung', 'facturx'))
)`,
    `create table billing_document_deliveries (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  document_id uuid not null references billing_documents (id) on delete cascade,
  installation_id uuid,
  channel text not null,
  recipient text not null,
  subject text not null,
  e_invoice_format text not null,
  attachments jsonb not null,
  sent_at timestamptz not null,
  constraint billing_document_deliveries_pkey primary key (id)
)`,
    `create index billing_document_deliveries_org_document_index
  on billing_document_deliveries (organization_id, document_id, sent_at)`,
    'alter table billing_documents add column sent_at timestamptz',
    `alter table billing_accounts add column e_invoice_format text
  constraint billing_accounts_e_invoice_format_check check (e_invoice_format in ('pdf', 'xrechnung', 'facturx'))`,
  ],
  down: [
    'alter table billing_accounts drop column e_invoice_format',
    'alter table billing_documents drop column sent_at',
    'drop table billing_document_deliveries',
    'drop table billing_document_archive',
  ],
};

export const billingOutputRowLevelSecurity: DomainMigration = tenantRowLevelSecurity(
  '20261126200100_billing_output_row_level_security',
  TABLES,
);

export const billingOutputMigrations: readonly DomainMigration[] = [
  createBillingOutputTables,
  billingOutputRowLevelSecurity,
  billingOutputTenantKeysAtCommit,
];
