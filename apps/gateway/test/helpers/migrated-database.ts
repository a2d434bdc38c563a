import { allMigrations, type Database, MIGRATIONS_TABLE, openDatabase, runMigrations } from '@agw/gateway';
import type { Knex } from 'knex';
import { afterAll, beforeAll } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './environment.js';

/**
 * An empty database of its own, migrated in `beforeAll` and closed in `afterAll`, with no gateway
 * running on it: for tests that take migrations back and forth. `knex` is set once `beforeAll` ran.
 */
export function useMigratedDatabase(): { readonly knex: Knex } {
  let environment: TestEnvironment | undefined;
  let database: Database | undefined;
  const handle = {} as { knex: Knex };
  beforeAll(async () => {
    environment = await createTestEnvironment({ emptyDataDir: true });
    database = openDatabase({ databaseUrl: environment.env.DATABASE_URL, dataDir: environment.dataDir });
    handle.knex = database.knex;
    await runMigrations(handle.knex);
  });
  afterAll(async () => {
    await database?.close();
    await environment?.cleanup();
  });
  return handle;
}

/** Takes back the applied migration `name` (its `down`), as an older release's schema had it. */
export async function undoMigration(knex: Knex, name: string): Promise<void> {
  const source = {
    getMigrations: async () => [...allMigrations()],
    getMigrationName: (migration: { name: string }) => migration.name,
    getMigration: async (migration: { up: Knex.Migration['up']; down: Knex.Migration['down'] }) => ({
      up: migration.up,
      down: migration.down,
    }),
  };
  await knex.migrate.down({ migrationSource: source, tableName: MIGRATIONS_TABLE, name });
}
