import { type DomainMigration, tenantKeysCheckedAtCommit, tenantRowLevelSecurity } from '../domain.js';

/**
 * The billing domain's tables. Money is `numeric(20,6)` (the contracts' MoneyAmount bound and 6
 * decimals), stored already rounded to the currency's minor units where it is an amount (totals,
 * payments); unit prices and quantities keep their 6 decimals. Every table carries `organization_id`
 * under row-level security for `agw_runtime`, and every index starts with it.
 *
 * An issued document is frozen: `billing_documents` holds the counterparty (`counterparty` jsonb),
 * issuer (`issuer` jsonb), bank account (`bank_account` jsonb), totals and the VAT breakdown
 * (`tax_breakdown` jsonb) as they were at finalize; `billing_document_lines` the lines. Nothing reads
 * the account, profile or item tables to render an issued document.
 */
/**
 * What `billing.document.search` matches: number, title and counterparty name as words, punctuation
 * turned into spaces so `RE-2026-00001` is the words re, 2026, 00001 (the parser would read `-2026`
 * as a signed number). Stored in `search_vector` (generated), so a filter on it never recomputes it.
 */
export const SEARCH_VECTOR = `to_tsvector('simple'::regconfig, regexp_replace(
    coalesce(number, '') || ' ' || coalesce(title, '') || ' ' || coalesce(counterparty_name, ''),
    '[^[:alnum:]]+', ' ', 'g'))`;

const TABLES = [
  'billing_bank_accounts',
  'billing_profiles',
  'billing_accounts',
  'billing_items',
  'billing_documents',
  'billing_document_lines',
  'billing_payments',
  'billing_reminders',
  'billing_number_counters',
] as const;

export const createBillingTables: DomainMigration = {
  name: '20261126100000_create_billing_tables',
  up: [
    `create table billing_bank_accounts (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  display_name text not null,
  account_holder text not null,
  iban text not null,
  bic text,
  bank_name text,
  payment_reference_template text,
  creditor_identifier text,
  notes text,
  currency char(3) not null default 'EUR',
  is_default boolean not null default false,
  is_active boolean not null default true,
  data jsonb not null default '{}',
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp,
  constraint billing_bank_accounts_pkey primary key (id)
)`,
    'create index billing_bank_accounts_org_index on billing_bank_accounts (organization_id, created_at)',
    `create table billing_profiles (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  profile_key text not null,
  display_name text not null,
  is_default boolean not null default false,
  is_active boolean not null default true,
  default_bank_account_id uuid references billing_bank_accounts (id),
  locale text not null default 'de-DE',
  currency char(3) not null default 'EUR',
  legal_footer_lines jsonb not null default '[]',
  layout_config jsonb not null default '{}',
  data jsonb not null default '{}',
  texts jsonb not null default '{}',
  number_patterns jsonb not null default '{}',
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp,
  constraint billing_profiles_pkey primary key (id),
  constraint billing_profiles_key_unique unique (organization_id, profile_key)
)`,
    `create table billing_accounts (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  account_type text not null default 'customer',
  name text not null,
  legal_name text,
  address_line1 text,
  address_line2 text,
  postal_code text,
  city text,
  state text,
  country_code char(2),
  vat_id text,
  email text,
  buyer_reference text,
  e_invoice_endpoint_id text,
  e_invoice_endpoint_scheme_id text,
  default_currency char(3),
  payment_terms_days integer,
  notes text,
  is_active boolean not null default true,
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp,
  constraint billing_accounts_pkey primary key (id),
  constraint billing_accounts_type_check check (account_type in ('customer', 'vendor', 'both'))
)`,
    'create index billing_accounts_org_name_index on billing_accounts (organization_id, lower(name))',
    `create table billing_items (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null,
  sku text,
  item_type text not null,
  description text,
  unit text,
  unit_price numeric(20,6) not null,
  currency char(3) not null,
  tax_name text,
  tax_percent numeric(9,6),
  is_active boolean not null default true,
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp,
  constraint billing_items_pkey primary key (id),
  constraint billing_items_type_check check (item_type in ('service', 'product', 'fee', 'discount', 'other'))
)`,
    'create index billing_items_org_name_index on billing_items (organization_id, lower(name))',
    `create table billing_documents (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  installation_id uuid not null references installations (id),
  document_type text not null,
  status text not null,
  payment_status text,
  number text,
  number_sequence bigint,
  title text,
  document_date date not null,
  due_date date,
  valid_until date,
  service_date date,
  currency char(3) not null,
  profile_id uuid references billing_profiles (id),
  account_id uuid references billing_accounts (id),
  vendor_id uuid references billing_accounts (id),
  source_document_id uuid references billing_documents (id),
  source_document_type text,
  corrects_document_id uuid references billing_documents (id),
  counterparty_name text,
  counterparty_email text,
  counterparty jsonb not null default '{}',
  issuer jsonb not null default '{}',
  bank_account jsonb,
  buyer_reference text,
  order_reference text,
  customer_e_invoice_endpoint_id text,
  customer_e_invoice_endpoint_scheme_id text,
  notes text,
  terms text,
  shipping_address jsonb,
  tax_treatment text not null,
  customer_tax_id text,
  customer_country_code text,
  document_discounts jsonb not null default '[]',
  tax_breakdown jsonb not null default '[]',
  subtotal numeric(20,6) not null,
  discount_total numeric(20,6) not null,
  net_total numeric(20,6) not null,
  tax_total numeric(20,6) not null,
  reverse_charge_tax_total numeric(20,6) not null,
  total numeric(20,6) not null,
  paid_total numeric(20,6) not null default 0,
  credited_total numeric(20,6) not null default 0,
  balance numeric(20,6) not null,
  issued_at timestamptz,
  paid_at timestamptz,
  voided_at timestamptz,
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp,
  search_vector tsvector generated always as (${SEARCH_VECTOR}) stored,
  constraint billing_documents_pkey primary key (id),
  constraint billing_documents_type_check check
    (document_type in ('quote', 'sales_order', 'invoice', 'credit_note', 'self_billing_invoice')),
  constraint billing_documents_balance_check check (balance >= 0 and paid_total >= 0),
  constraint billing_documents_number_unique unique (organization_id, document_type, number)
)`,
    'create index billing_documents_org_date_index on billing_documents (organization_id, document_date, id)',
    'create index billing_documents_org_created_index on billing_documents (organization_id, created_at, id)',
    'create index billing_documents_org_total_index on billing_documents (organization_id, total, id)',
    'create index billing_documents_org_number_index on billing_documents (organization_id, number, id)',
    `create index billing_documents_org_counterparty_index
  on billing_documents (organization_id, counterparty_name, id)`,
    'create index billing_documents_org_status_index on billing_documents (organization_id, status, id)',
    `create index billing_documents_org_type_date_index
  on billing_documents (organization_id, document_type, document_date, id)`,
    'create index billing_documents_search_index on billing_documents using gin (search_vector)',
    'create index billing_documents_source_index on billing_documents (organization_id, source_document_id)',
    `create table billing_document_lines (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  document_id uuid not null references billing_documents (id) on delete cascade,
  position integer not null,
  item_id uuid references billing_items (id),
  item_name text not null,
  sku text,
  description text,
  unit text,
  quantity numeric(20,6) not null,
  unit_price numeric(20,6) not null,
  discount_amount numeric(20,6) not null default 0,
  line_gross numeric(20,6) not null,
  line_total numeric(20,6) not null,
  tax_name text,
  tax_percent numeric(9,6) not null,
  tax_category text not null,
  tax_amount numeric(20,6) not null,
  constraint billing_document_lines_pkey primary key (id),
  constraint billing_document_lines_position_unique unique (document_id, position)
)`,
    'create index billing_document_lines_org_doc_index on billing_document_lines (organization_id, document_id)',
    `create table billing_payments (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  document_id uuid not null references billing_documents (id),
  account_id uuid references billing_accounts (id),
  status text not null default 'completed',
  amount numeric(20,6) not null,
  currency char(3) not null,
  payment_date date not null,
  payment_method text,
  reference text,
  notes text,
  created_at timestamptz not null default current_timestamp,
  constraint billing_payments_pkey primary key (id),
  constraint billing_payments_amount_check check (amount > 0)
)`,
    'create index billing_payments_org_doc_index on billing_payments (organization_id, document_id, created_at)',
    'create index billing_payments_org_created_index on billing_payments (organization_id, created_at, id)',
    `create table billing_reminders (
  id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  invoice_id uuid not null references billing_documents (id),
  account_id uuid references billing_accounts (id),
  reminder_level text not null,
  level_index integer not null,
  status text not null,
  reminder_date date not null,
  currency char(3) not null,
  due_date_at_reminder date,
  invoice_balance_at_reminder numeric(20,6),
  fee_amount numeric(20,6),
  interest_amount numeric(20,6),
  subject text,
  body_snapshot text,
  sent_channel text,
  sent_at timestamptz,
  created_at timestamptz not null default current_timestamp,
  constraint billing_reminders_pkey primary key (id),
  constraint billing_reminders_level_unique unique (invoice_id, level_index)
)`,
    'create index billing_reminders_org_created_index on billing_reminders (organization_id, created_at, id)',
    'create index billing_reminders_org_invoice_index on billing_reminders (organization_id, invoice_id)',
    `create table billing_number_counters (
  organization_id uuid not null references organizations (id) on delete cascade,
  profile_scope text not null,
  document_type text not null,
  year integer not null,
  last_value bigint not null,
  constraint billing_number_counters_pkey primary key (organization_id, profile_scope, document_type, year)
)`,
  ],
  down: [...TABLES].reverse().map((table) => `drop table ${table}`),
};

/** Row-level security on every billing table, exactly as `documents` does it. */
export const billingRowLevelSecurity: DomainMigration = tenantRowLevelSecurity(
  '20261126100100_billing_row_level_security',
  TABLES,
);

/**
 * The VAT total in the VAT accounting currency (EN 16931 BT-6, BT-111) of a document in another
 * currency: the currency (EUR unless named), the exchange rate (units of it per one unit of the
 * document currency) given at create_draft or finalize, and the VAT total converted at finalize.
 */
export const billingVatAccountingCurrency: DomainMigration = {
  name: '20261127100000_billing_vat_accounting_currency',
  up: [
    'alter table billing_documents add column vat_accounting_currency text',
    'alter table billing_documents add column exchange_rate numeric',
    'alter table billing_documents add column tax_total_accounting numeric',
  ],
  down: [
    'alter table billing_documents drop column tax_total_accounting',
    'alter table billing_documents drop column exchange_rate',
    'alter table billing_documents drop column vat_accounting_currency',
  ],
};

/**
 * A reminder as a letter (issue 28, build 8): its PDF stored on first rendering (later reads and every
 * send answer the same bytes), and the last recipient and the number of sends on the reminder row.
 */
export const billingReminderLetters: DomainMigration = {
  name: '20261130100000_billing_reminder_letters',
  up: [
    `create table billing_reminder_archive (
  organization_id uuid not null references organizations (id) on delete cascade,
  reminder_id uuid not null references billing_reminders (id) on delete cascade,
  filename text not null,
  content bytea not null,
  sha256 text not null,
  size_bytes integer not null,
  stored_at timestamptz not null,
  constraint billing_reminder_archive_pkey primary key (organization_id, reminder_id)
)`,
    'alter table billing_reminders add column sent_to text',
    'alter table billing_reminders add column send_count integer not null default 0',
  ],
  down: [
    'alter table billing_reminders drop column send_count',
    'alter table billing_reminders drop column sent_to',
    'drop table billing_reminder_archive',
  ],
};

export const billingReminderArchiveRowLevelSecurity: DomainMigration = tenantRowLevelSecurity(
  '20261130100100_billing_reminder_archive_row_level_security',
  ['billing_reminder_archive'],
);

/**
 * The billing tables' keys to their organization (and a document's to its installation), checked at commit
 * (`tenantKeysCheckedAtCommit`, src/domain.ts).
 */
export const billingTenantKeysAtCommit: DomainMigration = tenantKeysCheckedAtCommit(
  '20261207000300_billing_tenant_keys_at_commit',
  [
    ['billing_bank_accounts', 'billing_bank_accounts_organization_id_fkey'],
    ['billing_profiles', 'billing_profiles_organization_id_fkey'],
    ['billing_accounts', 'billing_accounts_organization_id_fkey'],
    ['billing_items', 'billing_items_organization_id_fkey'],
    ['billing_documents', 'billing_documents_organization_id_fkey'],
    ['billing_document_lines', 'billing_document_lines_organization_id_fkey'],
    ['billing_payments', 'billing_payments_organization_id_fkey'],
    ['billing_reminders', 'billing_reminders_organization_id_fkey'],
    ['billing_number_counters', 'billing_number_counters_organization_id_fkey'],
    ['billing_reminder_archive', 'billing_reminder_archive_organization_id_fkey'],
    ['billing_documents', 'billing_documents_installation_id_fkey'],
  ],
);

/** The billing domain's migrations, oldest first. */
export const billingMigrations: readonly DomainMigration[] = [
  createBillingTables,
  billingRowLevelSecurity,
  billingVatAccountingCurrency,
  billingReminderLetters,
  billingReminderArchiveRowLevelSecurity,
  billingTenantKeysAtCommit,
];
