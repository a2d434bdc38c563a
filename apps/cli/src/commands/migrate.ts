import type { GatewayConfig } from '@agw/gateway';
import { type CommandIO, EXIT_CONFIG, ExitError } from '../io.js';

/** Flags of `agw migrate`. */
export interface MigrateOptions {
  readonly dataDir?: string | undefined;
}

/**
 * `agw migrate`: applies pending gateway migrations to the configured database (DATABASE_URL, or
 * PGlite under DATA_DIR) and prints what ran.
 */
export async function migrate(
  options: MigrateOptions,
  env: Readonly<Record<string, string | undefined>>,
  io: CommandIO,
): Promise<void> {
  const { ConfigError, loadConfig, openDatabase, runMigrations } = await import('@agw/gateway');
  let config: GatewayConfig;
  try {
    config = loadConfig(env, { dataDir: options.dataDir });
  } catch (error) {
    if (error instanceof ConfigError) throw new ExitError(EXIT_CONFIG, error.message);
    throw error;
  }
  const database = openDatabase(config);
  try {
    const result = await runMigrations(database.knex);
    io.stdout(`Database: ${database.driver} (${database.location})\n`);
    if (result.applied.length === 0) {
      io.stdout(`Already up to date: ${result.all.length} migration(s) applied.\n`);
    } else {
      for (const name of result.applied) io.stdout(`Applied ${name}\n`);
      io.stdout(`Done: ${result.applied.length} migration(s) applied, ${result.all.length} in total.\n`);
    }
  } finally {
    await database.close();
  }
}
