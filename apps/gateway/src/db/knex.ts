import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPGLite from 'knex-pglite';
import type { GatewayConfig } from '../config.js';
import { usePrivateUmask } from '../data-dir.js';
import type { Logger } from '../logger.js';
import { PGliteThread } from './pglite-thread.js';

/** Which database engine serves the gateway. */
export type DatabaseDriver = 'pglite' | 'postgres';

/** An open knex instance and the engine behind it. */
export interface Database {
  readonly knex: Knex;
  readonly driver: DatabaseDriver;
  /** Where the data lives, without credentials (a directory for PGlite, host/db for PostgreSQL). */
  readonly location: string;
}

// PostgreSQL's default 128 MB of shared buffers makes the WASM heap grow to ~800 MB resident; 32 MB
// keeps the embedded default near 200 MB, plenty for one process's working set.
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

// A request must not hang when PostgreSQL is unreachable: fail fast and answer 503.
const CONNECT_TIMEOUT_MS = 3000;

/**
 * A request must not hang on a live connection either (a lock held elsewhere, a runaway plan): the
 * server cancels a statement after this long (SQLSTATE 57014, answered 503). 30 s is far above any
 * statement the gateway issues (milliseconds; batch work is bounded at 500 rows) and no longer than
 * an HTTP client commonly waits, so it only ends statements nobody is still waiting for.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * Opens the gateway database: PostgreSQL when DATABASE_URL is set, otherwise PGlite persisted under
 * DATA_DIR/pglite (created if missing). Opening is lazy; the first query connects.
 */
export function openDatabase(
  config: Pick<GatewayConfig, 'databaseUrl' | 'dataDir' | 'databaseStatementTimeoutMs'>,
  logger?: Logger,
): Database {
  const log = knexLog(logger);
  if (config.databaseUrl) {
    const url = new URL(config.databaseUrl);
    const knex = knexFactory({
      client: 'pg',
      connection: {
        connectionString: config.databaseUrl,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        // Sent as a startup parameter, so it holds for every pooled connection from its first statement.
        // pg omits 0, which leaves the role's, database's or server's own setting in force.
        statement_timeout: config.databaseStatementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      },
      pool: { min: 0, max: 10 },
      acquireConnectionTimeout: CONNECT_TIMEOUT_MS + 1000,
      log,
    });
    return { knex, driver: 'postgres', location: `${url.hostname}:${url.port || '5432'}${url.pathname}` };
  }
  // No statement timeout on PGlite: its WASM build has no timer signal, so PostgreSQL never cancels a
  // statement there (measured: `pg_sleep(1)` under a 200 ms timeout completes). Nor can a statement
  // wait on another session's lock: the process is the only session.
  const directory = join(config.dataDir, 'pglite');
  // The cluster is private whoever opens it (`agw serve`, `agw migrate`, an embedder): src/data-dir.ts.
  usePrivateUmask();
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const knex = knexFactory({
    client: ClientPGLite,
    dialect: 'postgres',
    // knex-pglite accepts a ready PGlite instance (so we can pass start parameters), here one on a worker
    // thread (src/db/pglite-thread.ts); knex's types do not know it. The calendar's no-overlap exclusion
    // constraint (calendar_id with =) needs btree_gist, which the thread loads.
    connection: {
      pglite: new PGliteThread(pathToFileURL(directory).href, PGLITE_START_PARAMS),
    } as unknown as Knex.StaticConnectionConfig,
    log,
  });
  return { knex, driver: 'pglite', location: directory };
}

// knex writes its own warnings to the console; send them through the structured log instead (or
// nowhere without a logger: the failures they describe also surface as request errors).
function knexLog(logger: Logger | undefined): Knex.Logger {
  const write = (level: 'warn' | 'error' | 'debug') => (message: unknown) =>
    logger?.[level]({ knex: message instanceof Error ? message.message : message }, 'knex');
  return { warn: write('warn'), error: write('error'), debug: write('debug'), deprecate: write('warn') };
}
