import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { openDatabase, runMigrations } from '@agw/gateway';
import pg from 'pg';
import { migrationFingerprint } from './migration-fingerprint.js';

/**
 * The name of a database on the server of `adminUrl` that holds the gateway's migrated, empty schema,
 * built on first use (a test file's database is then `create database … template` it: a copy instead
 * of 27 migrations). Named by the migrations' fingerprint; built under a temporary name and renamed,
 * so a concurrent builder never sees half a schema.
 */
export function postgresTemplate(adminUrl: string): Promise<string> {
  template ??= ensureTemplate(adminUrl);
  return template;
}

/** Looked up or built once per test process (its tests all use the one DATABASE_URL). */
let template: Promise<string> | undefined;

async function ensureTemplate(adminUrl: string): Promise<string> {
  const name = `agw_test_template_${migrationFingerprint()}`;
  const found = await admin(adminUrl, 'select 1 from pg_database where datname = $1', [name]);
  if (found.rowCount) return name;
  const building = `${name}_${randomBytes(4).toString('hex')}`;
  await admin(adminUrl, `create database ${building}`);
  const url = new URL(adminUrl);
  url.pathname = `/${building}`;
  const database = openDatabase({ databaseUrl: url.href, dataDir: tmpdir() });
  try {
    await runMigrations(database.knex);
  } finally {
    await database.close();
  }
  await admin(adminUrl, `alter database ${building} rename to ${name}`).catch(() =>
    admin(adminUrl, `drop database ${building} with (force)`),
  );
  return name;
}

/** One statement on the server's admin database, on a connection of its own. */
export async function admin(
  url: string,
  statement: string,
  values: readonly unknown[] = [],
): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(statement, [...values]);
  } finally {
    await client.end();
  }
}
