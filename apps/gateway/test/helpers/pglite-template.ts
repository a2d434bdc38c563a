import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, runMigrations } from '@agw/gateway';
import { PGlite } from '@electric-sql/pglite';
import { migrationFingerprint } from './migration-fingerprint.js';

// An initialized PGlite cluster, empty or with the gateway's migrations applied. Creating a cluster
// (initdb) costs several seconds and migrating it 1.3-1.6 s; copying one costs milliseconds. Keyed by
// the PGlite version (and the migrations' fingerprint), so an upgrade never reuses an old cluster.
const pgliteVersion = (
  JSON.parse(
    readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'),
  ) as { version: string }
).version;
const templateDir = join(tmpdir(), `agw-test-pglite-template-${pgliteVersion}`);

async function ensureTemplate(): Promise<string> {
  if (existsSync(join(templateDir, 'PG_VERSION'))) return templateDir;
  const building = await mkdtemp(join(tmpdir(), 'agw-test-pglite-building-'));
  const database = new PGlite(building);
  await database.waitReady;
  await database.close();
  // Another test worker may have won the race; either way a complete template is in place.
  await rename(building, templateDir).catch(() => rm(building, { recursive: true, force: true }));
  return templateDir;
}

/** The empty cluster migrated by the gateway, as `agw migrate` would on a first start. */
async function ensureMigratedTemplate(): Promise<string> {
  const migratedDir = `${templateDir}-migrated-${migrationFingerprint()}`;
  if (existsSync(join(migratedDir, 'PG_VERSION'))) return migratedDir;
  const dataDir = await mkdtemp(join(tmpdir(), 'agw-test-pglite-migrating-'));
  await cp(await ensureTemplate(), join(dataDir, 'pglite'), { recursive: true });
  const database = openDatabase({ dataDir, databaseUrl: undefined });
  try {
    await runMigrations(database.knex);
  } finally {
    await database.knex.destroy();
  }
  await rename(join(dataDir, 'pglite'), migratedDir).catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
  return migratedDir;
}

/**
 * Fills `directory` (DATA_DIR/pglite) with a copy of an initialized PGlite cluster: empty, or with
 * `migrated` the gateway's tables in place (its start then finds the schema up to date).
 */
export async function copyPgliteTemplate(
  directory: string,
  options: { readonly migrated?: boolean } = {},
): Promise<void> {
  const template = options.migrated ? await ensureMigratedTemplate() : await ensureTemplate();
  await cp(template, directory, { recursive: true });
}
