import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPGLite from 'knex-pglite';
import pg from 'pg';
import type { GatewayConfig } from '../config.js';
import { usePrivateUmask } from '../data-dir.js';
import type { Logger } from '../logger.js';
import { PGliteThread } from './pglite-thread.js';
import { createPglitePool, createPgPool, registerPool, type SqlPool } from './pool.js';

/** Which database engine serves the gateway. */
export type DatabaseDriver = 'pglite' | 'postgres';

/**
 * The gateway's database: the pool the SQL port speaks through, and knex (migrations, the
 * query-builder cold paths), which borrows its connections from that same pool.
 */
export interface Database {
  readonly pool: SqlPool;
  readonly knex: Knex;
  /**
   * knex on a connection of its own, for the periodic bookkeeping whose delay requests pay for (the
   * charge roll-up: every wallet snapshot sums the charges not rolled up yet; the audit sealer). In the
   * request pool it queued behind every waiting request. On PGlite, which has one session, `knex`.
   */
  readonly maintenance: Knex;
  readonly driver: DatabaseDriver;
  /** Where the data lives, without credentials (a directory for PGlite, host/db for PostgreSQL). */
  readonly location: string;
  /** Closes knex and the pool (on PGlite the database itself). */
  close(): Promise<void>;
}

// PGlite's PostgreSQL major, told to knex (its documented `version` option; knex asks only a server it
// connects to itself). Only its choice of column type for `json()` in migrations depends on it.
const PGLITE_POSTGRES_VERSION = '17';

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
 * The pool's size without DATABASE_POOL_SIZE: twice the machine's cores, from 4 to 10. PostgreSQL does
 * the most work per second with about twice its cores' worth of active connections; past that each
 * statement waits for a core while holding its locks. On this 2-core machine, with PostgreSQL beside the
 * gateway, 4 connections instead of 10 took ~10 % of PostgreSQL's CPU per mutation off, for as many
 * mutations a second (docs/performance.md, "Write path, eighth round"). The cores counted are the
 * gateway's: the figure fits a gateway on PostgreSQL's machine or one like it; 10, the former fixed
 * size, stays the ceiling.
 */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.min(10, Math.max(4, 2 * cores));
}

/**
 * Opens the gateway database: PostgreSQL when DATABASE_URL is set, otherwise PGlite persisted under
 * DATA_DIR/pglite (created if missing). Opening is lazy; the first query connects.
 */
export function openDatabase(
  config: Pick<
    GatewayConfig,
    | 'databaseUrl'
    | 'dataDir'
    | 'databaseStatementTimeoutMs'
    | 'databasePreparedStatements'
    | 'databasePoolSize'
  >,
  logger?: Logger,
): Database {
  const log = knexLog(logger);
  if (config.databaseUrl) {
    const url = new URL(config.databaseUrl);
    const pool = createPgPool(
      pgPoolOf(config, config.databasePoolSize ?? defaultPoolSize(), logger),
      config.databasePreparedStatements !== false,
    );
    const knex = knexFactory({ client: 'pg', connectionPool: pool.forKnex, log });
    const maintenancePool = createPgPool(
      pgPoolOf(config, 1, logger),
      config.databasePreparedStatements !== false,
    );
    const maintenance = knexFactory({ client: 'pg', connectionPool: maintenancePool.forKnex, log });
    const location = `${url.hostname}:${url.port || '5432'}${url.pathname}`;
    return database([pool, knex], [maintenancePool, maintenance], 'postgres', location);
  }
  // No statement timeout on PGlite: its WASM build has no timer signal, so PostgreSQL never cancels a
  // statement there (measured: `pg_sleep(1)` under a 200 ms timeout completes). Nor can a statement
  // wait on another session's lock: the process is the only session.
  const directory = join(config.dataDir, 'pglite');
  // The cluster is private whoever opens it (`agw serve`, `agw migrate`, an embedder): src/data-dir.ts.
  usePrivateUmask();
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  // The database runs on a worker thread (src/db/pglite-thread.ts), which loads the extensions.
  const thread = new PGliteThread(pathToFileURL(directory).href, PGLITE_START_PARAMS);
  const pool = createPglitePool(thread);
  const knex = knexFactory({
    client: PooledPGliteClient,
    dialect: 'postgres',
    version: PGLITE_POSTGRES_VERSION,
    connectionPool: pool.forKnex,
    log,
  });
  return database([pool, knex], [pool, knex], 'pglite', directory);
}

/**
 * knex-pglite's dialect (PGlite's answers read as knex expects them) with the session lent by the
 * gateway's pool. Its `_driver` hook, which a knex dialect overrides to load its driver, opens an
 * in-memory PGlite when given no instance; here it loads nothing, every connection comes from the pool.
 */
class PooledPGliteClient extends ClientPGLite {
  _driver(): undefined {
    return undefined;
  }
}

function database(
  [pool, knex]: [SqlPool, Knex],
  [maintenancePool, maintenance]: [SqlPool, Knex],
  driver: DatabaseDriver,
  location: string,
): Database {
  registerPool(knex, pool);
  registerPool(maintenance, maintenancePool);
  return {
    pool,
    knex,
    maintenance,
    driver,
    location,
    async close() {
      if (maintenance !== knex) {
        await maintenance.destroy();
        await maintenancePool.end();
      }
      await knex.destroy();
      await pool.end();
    },
  };
}

/** A pg pool of `max` connections on DATABASE_URL, with the gateway's timeouts. */
function pgPoolOf(
  config: Pick<GatewayConfig, 'databaseUrl' | 'databaseStatementTimeoutMs'>,
  max: number,
  logger: Logger | undefined,
): pg.Pool {
  const pgPool = new pg.Pool({
    connectionString: config.databaseUrl,
    // Waiting for a pooled connection and opening one both end here: fail fast and answer 503.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Sent as a startup parameter, so it holds for every pooled connection from its first statement.
    // pg omits 0, which leaves the role's, database's or server's own setting in force.
    statement_timeout: config.databaseStatementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    max,
    // An idle pool keeps no process alive (`agw migrate`, an embedder that forgot close()).
    allowExitOnIdle: true,
  });
  // A connection the server ends (a restart, an idle timeout) must not end the process: pg emits the
  // error on the pool for an idle client and on the client itself while it is lent; pg-pool discards
  // a client that failed when it comes back.
  pgPool.on('error', (error) => logger?.warn({ err: error }, 'an idle database connection failed'));
  pgPool.on('connect', (client) => {
    client.on('error', (error) => logger?.warn({ err: error }, 'a database connection failed'));
  });
  return pgPool;
}

// knex writes its own warnings to the console; send them through the structured log instead (or
// nowhere without a logger: the failures they describe also surface as request errors).
function knexLog(logger: Logger | undefined): Knex.Logger {
  const write = (level: 'warn' | 'error' | 'debug') => (message: unknown) =>
    logger?.[level]({ knex: message instanceof Error ? message.message : message }, 'knex');
  return { warn: write('warn'), error: write('error'), debug: write('debug'), deprecate: write('warn') };
}
