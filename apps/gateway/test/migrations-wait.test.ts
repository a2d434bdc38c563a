import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { openDatabase, runMigrations } from '@agw/gateway';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from './helpers/postgres-template.js';

const adminUrl = process.env.DATABASE_URL;

// Gateways started at once on one PostgreSQL take turns under an advisory lock (src/db/migrate.ts): the
// others wait while one migrates, however long that takes, and then start. The wait must not be cut by
// the statement timeout, or a gateway started beside a long migration exits.
describe.skipIf(!adminUrl)('a gateway waiting for another gateway’s migrations (PostgreSQL)', () => {
  const name = `agw_test_${randomBytes(6).toString('hex')}`;
  let url: string;

  beforeAll(async () => {
    await admin(adminUrl as string, `create database ${name}`);
    const parsed = new URL(adminUrl as string);
    parsed.pathname = `/${name}`;
    url = parsed.href;
  });

  afterAll(async () => {
    await admin(adminUrl as string, `drop database if exists ${name} with (force)`);
  });

  it('waits past its statement timeout while another holds the migration lock, then migrates', async () => {
    // The other gateway, mid-migration: it holds the lock the migrations take turns under.
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query("select pg_advisory_lock(hashtext('agw.migrations'))");
    const database = openDatabase({ databaseUrl: url, dataDir: tmpdir(), databaseStatementTimeoutMs: 400 });
    try {
      const migrating = runMigrations(database.knex);
      const outcome = await Promise.race([
        migrating.then(
          () => 'finished',
          (error: Error) => `failed: ${error.message}`,
        ),
        new Promise((resolve) => setTimeout(() => resolve('waiting'), 1500)),
      ]);
      expect(outcome).toBe('waiting');
      await other.query("select pg_advisory_unlock(hashtext('agw.migrations'))");
      const { applied } = await migrating;
      expect(applied.length).toBeGreaterThan(0);
    } finally {
      await other.end();
      await database.close();
    }
  });
});
