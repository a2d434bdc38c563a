import { existsSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdtemp, rename, rm } from 'node:fs/promises';
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

/**
 * `target` when a complete cluster is there; otherwise `build` makes one in a folder of its own, moved
 * into place whole. Another test process may have won the race; either way a complete cluster is there.
 */
async function cluster(target: string, build: (dataDir: string) => Promise<void>): Promise<string> {
  if (existsSync(join(target, 'PG_VERSION'))) return target;
  const dataDir = await mkdtemp(join(tmpdir(), 'agw-test-pglite-building-'));
  await build(dataDir);
  await rename(join(dataDir, 'pglite'), target).catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
  return target;
}

const ensureTemplate = () =>
  cluster(templateDir, async (dataDir) => {
    const database = new PGlite(join(dataDir, 'pglite'));
    await database.waitReady;
    await database.close();
  });

/** The empty cluster migrated by the gateway, as `agw migrate` would on a first start. */
const ensureMigratedTemplate = () =>
  cluster(`${templateDir}-migrated-${migrationFingerprint()}`, async (dataDir) => {
    await cp(await ensureTemplate(), join(dataDir, 'pglite'), { recursive: true });
    const database = openDatabase({ dataDir, databaseUrl: undefined });
    try {
      await runMigrations(database.knex);
    } finally {
      await database.close();
    }
  });

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
  // The template keeps the modes of the process that built it: a first test file run alone builds it
  // before any gateway set its private umask, and the gateway refuses a database folder others can read
  // (the files inside it the gateway tightens itself at start).
  await chmod(directory, 0o700);
}
