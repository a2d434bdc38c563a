import { capabilityExtensions, capabilityMigrations, type DomainMigration } from '@agw/capabilities';
import type { Knex } from 'knex';
import { createExtensions } from './extensions.js';
import { createAuditEvents } from './migrations/20261122000000-create-audit-events.js';
import { createOnboarding } from './migrations/20261122010000-create-onboarding.js';
import { createWallets } from './migrations/20261122020000-create-wallets.js';
import { createAuditChain } from './migrations/20261123020000-audit-chain.js';
import { createInvokeJobs } from './migrations/20261123030000-create-invoke-jobs.js';
import { createWalletSpend } from './migrations/20261123040000-create-wallet-spend.js';
import { indexFinishedInvokeJobs } from './migrations/20261124010000-index-finished-invoke-jobs.js';
import { createRuntimeRole } from './migrations/20261125000000-runtime-role.js';
import { hashIdempotencyKeys } from './migrations/20261125010000-hash-idempotency-keys.js';
import { domainMail } from './migrations/20261126000000-domain-mail.js';
import { createConsole } from './migrations/20261201000000-console.js';
import { auditSealByTransaction } from './migrations/20261202000000-audit-seal-by-transaction.js';
import { auditSealSnapshot } from './migrations/20261202010000-audit-seal-snapshot.js';
import { operatorNotices } from './migrations/20261203000000-operator-notices.js';
import { consolePaging } from './migrations/20261204000000-console-paging.js';
import { walletRunningSpend } from './migrations/20261205020000-wallet-running-spend.js';
import { walletLedgerTwoIndexes } from './migrations/20261205030000-wallet-ledger-two-indexes.js';
import { auditIdIsRowId } from './migrations/20261206000000-audit-id-is-row-id.js';
import { tenantKeysAtCommit } from './migrations/20261207000000-tenant-keys-at-commit.js';
import { walletRollupByTransaction } from './migrations/20261208000000-wallet-rollup-by-transaction.js';
import { walletRollupBySnapshot } from './migrations/20261209000000-wallet-rollup-by-snapshot.js';
import { sqlPoolOf } from './pool.js';

/** One forward migration, defined in code so it runs the same from source and from the bundle. */
export interface GatewayMigration {
  readonly name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * The gateway's own migrations. Append only; never rename or reorder a published one. The domains'
 * migrations (@agw/capabilities) join them in {@link allMigrations}: `20261123010000_create_documents`
 * was published here and now lives in the documents domain under the same name.
 */
export const gatewayMigrations: readonly GatewayMigration[] = [
  createAuditEvents,
  createOnboarding,
  createWallets,
  createAuditChain,
  createInvokeJobs,
  createWalletSpend,
  indexFinishedInvokeJobs,
  createRuntimeRole,
  hashIdempotencyKeys,
  domainMail,
  createConsole,
  auditSealByTransaction,
  auditSealSnapshot,
  operatorNotices,
  consolePaging,
  walletRunningSpend,
  walletLedgerTwoIndexes,
  auditIdIsRowId,
  fromDomain(tenantKeysAtCommit),
  walletRollupByTransaction,
  walletRollupBySnapshot,
];

/** A domain migration as knex runs it: its statements one by one (knex wraps each migration in a transaction). */
function fromDomain(migration: DomainMigration): GatewayMigration {
  const run = async (knex: Knex, statements: readonly string[]) => {
    for (const statement of statements) await knex.raw(statement);
  };
  return {
    name: migration.name,
    up: (knex) => run(knex, migration.up),
    down: (knex) => run(knex, migration.down),
  };
}

/**
 * One migration source: the gateway's and every domain's migrations, ordered by name (a timestamp
 * prefix), the same on PostgreSQL and PGlite. A duplicate name is a programming error, refused at start.
 */
export function allMigrations(
  domainMigrations: readonly DomainMigration[] = capabilityMigrations,
): readonly GatewayMigration[] {
  const all = [...gatewayMigrations, ...domainMigrations.map(fromDomain)];
  all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const duplicate = all.find((migration, index) => index > 0 && all[index - 1]?.name === migration.name);
  if (duplicate) throw new Error(`Two migrations are named ${duplicate.name}.`);
  return all;
}

/** knex's bookkeeping table for the gateway's migrations. */
export const MIGRATIONS_TABLE = 'agw_migrations';

class CodeMigrationSource implements Knex.MigrationSource<GatewayMigration> {
  constructor(private readonly migrations: readonly GatewayMigration[]) {}

  getMigrations(): Promise<GatewayMigration[]> {
    return Promise.resolve([...this.migrations]);
  }

  getMigrationName(migration: GatewayMigration): string {
    return migration.name;
  }

  getMigration(migration: GatewayMigration): Promise<Knex.Migration> {
    return Promise.resolve({ up: migration.up, down: migration.down });
  }
}

/** What {@link runMigrations} did. */
export interface MigrationResult {
  /** Names of the migrations applied by this call, oldest first; empty when already up to date. */
  readonly applied: readonly string[];
  /** Names of every migration now applied. */
  readonly all: readonly string[];
}

/**
 * Applies every pending migration, the gateway's and the domains', after creating the PostgreSQL
 * extensions the domains declare (src/db/extensions.ts). Gateways started at once on one PostgreSQL
 * take turns (see {@link oneAtATime}): the first applies, the others then find nothing to do.
 *
 * @example
 * const { applied } = await runMigrations(database.knex);
 */
export async function runMigrations(knex: Knex): Promise<MigrationResult> {
  const options = {
    migrationSource: new CodeMigrationSource(allMigrations()),
    tableName: MIGRATIONS_TABLE,
  };
  return oneAtATime(knex, async () => {
    await createExtensions(knex, capabilityExtensions);
    const [, applied] = (await knex.migrate.latest(options)) as [number, string[]];
    const [completed] = (await knex.migrate.list(options)) as [Array<{ name: string }>, unknown];
    return { applied, all: completed.map((migration) => migration.name) };
  });
}

const MIGRATION_LOCK = "select pg_advisory_xact_lock(hashtext('agw.migrations'))";
// The wait for the lock lasts as long as another gateway's migrations: under the statement timeout
// (30 s by default) a long migration would cancel the wait and the waiting gateway would exit.
const NO_TIMEOUT_WHILE_WAITING = "select set_config('statement_timeout', '0', true)";

/**
 * Runs `work` while holding a transaction-level advisory lock on a connection of its own, so gateways
 * started at once on an empty PostgreSQL migrate one after the other. knex's own lock refuses a second
 * caller outright ("Migration table is already locked") and two first runs race to create its
 * tables. A transaction-level lock, not a session one, so it holds behind pgbouncer in transaction
 * mode too (the open transaction keeps its server connection). PGlite is one process's alone.
 */
async function oneAtATime<T>(knex: Knex, work: () => Promise<T>): Promise<T> {
  const pool = sqlPoolOf(knex);
  if (pool.engine !== 'postgres') return work();
  return pool.transaction(async (sql) => {
    await sql.query(NO_TIMEOUT_WHILE_WAITING);
    await sql.query(MIGRATION_LOCK);
    return work();
  });
}
