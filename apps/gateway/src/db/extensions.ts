import { createRequire } from 'node:module';
import type { Knex } from 'knex';

// An extension's name as `create extension` takes it quoted (e.g. btree_gist, uuid-ossp).
const EXTENSION_NAME = /^[a-z][a-z0-9_-]*$/;

function checkName(name: string): string {
  if (!EXTENSION_NAME.test(name)) {
    throw new Error(`A domain declares the extension "${name}": not an extension name.`);
  }
  return name;
}

/** What PGlite's worker loads for extension `name`: the module path and the name it is exported as. */
export interface PgliteExtensionModule {
  readonly exportName: string;
  readonly path: string;
}

/**
 * The PGlite module of each extension a domain declares: `@electric-sql/pglite/contrib/<name>`, which
 * exports it under its name (`-` written `_`, as in uuid_ossp). PGlite loads an extension only when
 * given its module at creation, so a name it does not ship stops the start, naming it.
 */
export function pgliteExtensionModules(names: readonly string[]): PgliteExtensionModule[] {
  const require = createRequire(import.meta.url);
  return names.map((name) => {
    const exportName = checkName(name).replaceAll('-', '_');
    try {
      return { exportName, path: require.resolve(`@electric-sql/pglite/contrib/${exportName}`) };
    } catch {
      throw new Error(
        `A domain needs the PostgreSQL extension ${name}, which the embedded database (PGlite) does not ship.`,
      );
    }
  });
}

/**
 * Creates each extension unless it exists, before the migrations that use it. On PostgreSQL the
 * gateway's user must be allowed to (a trusted extension such as btree_gist needs CREATE on the
 * database, which its owner has); PostgreSQL's refusal names the extension.
 */
export async function createExtensions(knex: Knex, names: readonly string[]): Promise<void> {
  for (const name of names) {
    try {
      await knex.raw(`create extension if not exists "${checkName(name)}"`);
    } catch (error) {
      // Another gateway starting on the same database created it between the check and the insert.
      const code = (error as { code?: unknown }).code;
      if (code !== '23505' && code !== '42710') throw error;
    }
  }
}
