import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

// An initialized but empty PGlite cluster (no gateway tables: every test still runs the migrations).
// Creating a cluster (initdb) costs several seconds; copying one costs milliseconds. Keyed by the
// PGlite version so an upgrade never reuses an old cluster.
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

/** Fills `directory` (DATA_DIR/pglite) with a copy of an initialized, empty PGlite cluster. */
export async function copyPgliteTemplate(directory: string): Promise<void> {
  await cp(await ensureTemplate(), directory, { recursive: true });
}
