import type { Knex } from 'knex';
import { createAuditEvents } from './migrations/20261122000000-create-audit-events.js';
import { createOnboarding } from './migrations/20261122010000-create-onboarding.js';
import { createWallets } from './migrations/20261122020000-create-wallets.js';
import { createDocuments } from './migrations/20261123010000-create-documents.js';
import { createAuditChain } from './migrations/20261123020000-audit-chain.js';
import { createInvokeJobs } from './migrations/20261123030000-create-invoke-jobs.js';
import { createWalletSpend } from './migrations/20261123040000-create-wallet-spend.js';
import { indexFinishedInvokeJobs } from './migrations/20261124010000-index-finished-invoke-jobs.js';
import { hashIdempotencyKeys } from './migrations/20261125010000-hash-idempotency-keys.js';

/** One forward migration, defined in code so it runs the same from source and from the bundle. */
export interface GatewayMigration {
  readonly name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Every gateway migration, oldest first. Append only; never rename or reorder a published one. */
export const gatewayMigrations: readonly GatewayMigration[] = [
  createAuditEvents,
  createOnboarding,
  createWallets,
  createDocuments,
  createAuditChain,
  createInvokeJobs,
  createWalletSpend,
  indexFinishedInvokeJobs,
  hashIdempotencyKeys,
];

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
 * Applies every pending gateway migration (knex's migration lock makes concurrent callers safe).
 *
 * @example
 * const { applied } = await runMigrations(database.knex);
 */
export async function runMigrations(knex: Knex): Promise<MigrationResult> {
  const options = {
    migrationSource: new CodeMigrationSource(gatewayMigrations),
    tableName: MIGRATIONS_TABLE,
  };
  const [, applied] = (await knex.migrate.latest(options)) as [number, string[]];
  const [completed] = (await knex.migrate.list(options)) as [Array<{ name: string }>, unknown];
  return { applied, all: completed.map((migration) => migration.name) };
}
