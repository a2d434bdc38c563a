import { openDatabase } from '@agw/gateway';
import type { Knex } from 'knex';

/**
 * Runs `action` on the tables of a spawned gateway: on PostgreSQL at once over `pgKnex`; on PGlite
 * (single process) only while no gateway holds `dataDir` — the caller stops it first — opened and closed
 * around `action`.
 */
export async function withGatewayTables<T>(
  pgKnex: Knex | undefined,
  dataDir: string,
  action: (knex: Knex) => Promise<T>,
): Promise<T> {
  if (pgKnex) return action(pgKnex);
  const { knex } = openDatabase({ databaseUrl: undefined, dataDir });
  try {
    return await action(knex);
  } finally {
    await knex.destroy();
  }
}
