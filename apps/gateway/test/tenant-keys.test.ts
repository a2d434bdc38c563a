// Every foreign key to the tenant (`organizations`, `installations`) is checked at COMMIT
// (`tenantKeysCheckedAtCommit` of @agw/capabilities says why: the concurrent invokes of one organization
// no longer hold its row's key-share lock together). Read from the catalog of the migrated database, so a
// table a new migration adds with an immediate key is named; and the key still refuses a row whose
// organization is missing, at COMMIT, leaving nothing behind. On PGlite and, when DATABASE_URL is set,
// on PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/knex.js';
import { runMigrations } from '../src/db/migrate.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';

interface TenantKey {
  readonly name: string;
  readonly deferrable: boolean;
  readonly deferred: boolean;
}

/** Every foreign key of the schema to `organizations` or `installations`, as "table.constraint". */
async function tenantKeys(): Promise<TenantKey[]> {
  const { rows } = await database.knex.raw<{ rows: TenantKey[] }>(
    `select c.conrelid::regclass::text || '.' || c.conname as name, c.condeferrable as deferrable,
            c.condeferred as deferred
       from pg_constraint c
      where c.contype = 'f' and c.connamespace = current_schema()::regnamespace
        and c.confrelid in ('organizations'::regclass, 'installations'::regclass)
      order by name`,
  );
  return rows;
}

let environment: TestEnvironment;
let database: Database;

beforeAll(async () => {
  environment = await createTestEnvironment();
  database = openDatabase({ databaseUrl: environment.env.DATABASE_URL, dataDir: environment.dataDir });
  await runMigrations(database.knex);
});

afterAll(async () => {
  await database?.knex.destroy();
  await environment?.cleanup();
});

describe(`keys to the tenant are checked at commit (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('every foreign key to organizations or installations is deferrable and initially deferred', async () => {
    const keys = await tenantKeys();
    // The gateway's (the charge every paid invoke writes) and the domains' (documents, billing, calendar).
    expect(keys.map((key) => key.name)).toEqual(
      expect.arrayContaining([
        'wallet_ledger.wallet_ledger_organization_id_foreign',
        'documents.documents_organization_id_foreign',
        'documents.documents_installation_id_foreign',
        'billing_documents.billing_documents_organization_id_fkey',
        'calendar_bookings.calendar_bookings_organization_id_fkey',
      ]),
    );
    expect(keys.length).toBeGreaterThan(35);
    expect(keys.filter((key) => !key.deferrable || !key.deferred).map((key) => key.name)).toEqual([]);
  });

  it('names a new table whose key to the tenant is checked at each insert', async () => {
    const found = await database.knex
      .transaction(async (trx) => {
        await trx.raw(
          'create table agw_immediate (id uuid primary key, organization_id uuid not null references organizations (id))',
        );
        const { rows } = await trx.raw<{ rows: { name: string }[] }>(
          `select conrelid::regclass::text as name from pg_constraint
            where contype = 'f' and confrelid = 'organizations'::regclass and not (condeferrable and condeferred)`,
        );
        throw Object.assign(new Error('rollback'), { found: rows.map((row) => row.name) });
      })
      .catch((error: { found?: string[] }) => error.found);
    expect(found).toEqual(['agw_immediate']);
  });

  it('a charge for an organization that does not exist fails at COMMIT and leaves nothing', async () => {
    const scope = `tenant-keys-test:${randomUUID()}`;
    const missing = randomUUID();
    const outcome = await database.knex
      .transaction(async (trx) => {
        // The insert itself passes: the key is checked when the transaction commits.
        await trx.raw(
          `insert into wallet_ledger (organization_id, amount, kind, idempotency_scope) values (?, 1, 'charge', ?)`,
          [missing, scope],
        );
        return 'inserted';
      })
      .catch((error: { code?: string; message?: string }) => `${error.code}: ${error.message}`);
    expect(outcome).toMatch(/^23503: .*wallet_ledger_organization_id_foreign/);
    const { rows } = await database.knex.raw<{ rows: unknown[] }>(
      'select 1 from wallet_ledger where idempotency_scope = ?',
      [scope],
    );
    expect(rows).toEqual([]);
  });
});
