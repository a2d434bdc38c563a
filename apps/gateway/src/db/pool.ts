import type { Sql, SqlDatabase, SqlQueryOptions, SqlResult } from '@agw/capabilities';
import type { Knex } from 'knex';
import type pg from 'pg';
import type { PGliteThread } from './pglite-thread.js';
import { pgSql } from './sql-pg.js';
import { queryAfter } from './sql-pg-batch.js';
import { pgliteSql, queryBetweenOnThread } from './sql-pglite.js';

/**
 * A statement sent ahead of or behind another in one round trip: text without parameters (BEGIN, a
 * savepoint, COMMIT), or a {@link NamedBatchStatement}.
 */
export type BatchStatement = string | NamedBatchStatement;

/**
 * A statement of a batch prepared once per connection on `pg` (the tenant's role and organization ahead
 * of every handler statement, the way back ahead of the answer): parsed and planned once instead of for
 * every request. PGlite runs a batch's leading statements as one simple query, so it sends `inline`:
 * the same statement with its values written in.
 */
export interface NamedBatchStatement {
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
  readonly inline: string;
}

/** The port plus what only the gateway uses: several statements in one round trip. */
export interface TransactionSql extends Sql {
  /** Runs `text` (one or more statements, no parameters) as one simple query. */
  exec(text: string): Promise<void>;
  /**
   * Runs `leading` (e.g. a savepoint and the tenant), then `text`, then `trailing` (e.g. a COMMIT,
   * skipped when `text` fails); answers `text`'s result. On `pg` in one round trip and one Sync
   * (src/db/sql-pg-batch.ts); on PGlite, in one message to its thread.
   */
  queryAfter<Row = Record<string, unknown>>(
    leading: readonly BatchStatement[],
    text: string,
    params?: readonly unknown[],
    options?: SqlQueryOptions,
    trailing?: readonly BatchStatement[],
  ): Promise<SqlResult<Row>>;
}

/** A connection the pool lends: a `pg` pooled client, or the PGlite thread (the only session). */
export type RawConnection = pg.PoolClient | PGliteThread;

/**
 * The gateway's connection pool, for both engines: the SQL port's statements and knex (migrations and
 * the query-builder cold paths) borrow from it alone, so on PGlite, whose one session is the whole
 * pool, a port statement never lands inside a knex transaction.
 */
export interface SqlPool extends SqlDatabase {
  /** PostgreSQL's pool of sessions, or PGlite's one session. */
  readonly engine: 'postgres' | 'pglite';
  /**
   * Lends `fn` one connection as a {@link TransactionSql} until `fn` settles; the port refuses every
   * statement afterwards (a handler that kept `ctx.sql` must not reach a connection another request
   * owns by then). `fn` calls `dispose(error)` when the connection's transaction state is unknown (a
   * failed ROLLBACK): the pool then closes it instead of lending it again (PGlite's one session stays).
   */
  connection<T>(fn: (sql: TransactionSql, dispose: (error: unknown) => void) => Promise<T>): Promise<T>;
  /** {@link connection} with the raw connection too, for a knex transaction opened on it (db/knex-transaction.ts). */
  lend<T>(
    fn: (raw: RawConnection, sql: TransactionSql, dispose: (error: unknown) => void) => Promise<T>,
  ): Promise<T>;
  /** What knex borrows its connections from: its documented `connectionPool` option. */
  readonly forKnex: NonNullable<Knex.Config['connectionPool']>;
  /** Closes every connection (on PGlite the database itself). */
  end(): Promise<void>;
  /** Who is told of each statement the port sends (metrics, src/metrics); nobody by default. */
  readonly hooks: PoolHooks;
  /** Connections lent now, and requests waiting for one (read at scrape time by src/metrics). */
  usage(): { readonly inUse: number; readonly waiting: number };
}

/** Listeners of a pool's port statements (knex's cold-path queries are not included). */
export interface PoolHooks {
  /** Told each statement's duration in seconds once it settled, failed or not. */
  statement?: ((seconds: number) => void) | undefined;
  /** Runs each statement in a tracing span (src/tracing): its SQL text and name, never its values. */
  span?: (<T>(text: string, name: string | undefined, run: () => Promise<T>) => Promise<T>) | undefined;
}

/**
 * The pool on PostgreSQL: a `pg.Pool`, which knex wraps as a native pool. With `preparedStatements`
 * false every statement goes unnamed, its `name` ignored (DATABASE_PREPARED_STATEMENTS).
 */
export function createPgPool(pool: pg.Pool, preparedStatements = true): SqlPool {
  const hooks: PoolHooks = {};
  const direct = pgSql(pool, preparedStatements);
  const lend: SqlPool['lend'] = async (fn) => {
    const client = await pool.connect();
    let broken: unknown;
    const lent = lentUntilReleased(pgPort(client, preparedStatements), hooks);
    try {
      return await fn(client, lent.port, (error) => {
        broken = error ?? new Error('disposed');
      });
    } finally {
      lent.release();
      // pg's documented way to destroy rather than return a client: release it with an error.
      client.release(broken === undefined ? undefined : (broken as Error));
    }
  };
  return {
    ...transactionsOn(lend),
    query: (text, params, options) =>
      timed(hooks, () => direct.query(text, params, options), text, options?.name),
    engine: 'postgres',
    lend,
    connection: (fn) => lend((_raw, sql, dispose) => fn(sql, dispose)),
    forKnex: pool,
    end: () => pool.end(),
    hooks,
    usage: () => ({ inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }),
  };
}

const SESSION_WAIT_MS = 60_000;

/**
 * The pool on PGlite: its one session, lent to one user at a time in the order they asked (the port's
 * statements, a knex transaction, a migration).
 */
export function createPglitePool(thread: PGliteThread): SqlPool {
  const waiting: (() => void)[] = [];
  let busy = false;
  const acquire = async (): Promise<PGliteThread> => {
    if (busy) await turn();
    busy = true;
    try {
      await thread.waitReady;
    } catch (error) {
      release();
      throw error;
    }
    return thread;
  };
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) busy = false;
    else next();
  };
  // As long as knex waited for its pool before (its default acquireConnectionTimeout): a request that
  // waited this long is answered 503, retryable, rather than queued on.
  const turn = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(next), 1);
        reject(
          new Error(
            `Timeout acquiring a connection: the embedded database was busy for ${SESSION_WAIT_MS} ms`,
          ),
        );
      }, SESSION_WAIT_MS);
      const next = () => {
        clearTimeout(timer);
        resolve();
      };
      waiting.push(next);
    });
  const port = pglitePort(thread);
  const hooks: PoolHooks = {};
  const lend: SqlPool['lend'] = async (fn) => {
    await acquire();
    const lent = lentUntilReleased(port, hooks);
    try {
      // A failed ROLLBACK on PGlite means the database itself is gone: nothing to close apart from it.
      return await fn(thread, lent.port, () => undefined);
    } finally {
      lent.release();
      release();
    }
  };
  return {
    ...transactionsOn(lend),
    async query(text, params, options) {
      await acquire();
      try {
        return await timed(hooks, () => port.query(text, params, options), text, options?.name);
      } finally {
        release();
      }
    },
    engine: 'pglite',
    lend,
    connection: (fn) => lend((_raw, sql, dispose) => fn(sql, dispose)),
    // A tarn-shaped pool (knex's own pool type) of that one session.
    forKnex: {
      acquire: () => ({ promise: acquire() }),
      release: () => {
        release();
        return true;
      },
      destroy: async () => undefined,
      numUsed: () => (busy ? 1 : 0),
      numFree: () => (busy ? 0 : 1),
      numPendingAcquires: () => waiting.length,
    } as NonNullable<Knex.Config['connectionPool']>,
    end: () => thread.close(),
    hooks,
    usage: () => ({ inUse: busy ? 1 : 0, waiting: waiting.length }),
  };
}

/** `transaction` of the port: BEGIN and COMMIT on one lent connection, ROLLBACK when `fn` throws. */
function transactionsOn(lend: SqlPool['lend']): Pick<SqlDatabase, 'transaction'> {
  return {
    transaction: (fn) =>
      lend(async (_raw, sql, dispose) => {
        await sql.exec('begin');
        try {
          const value = await fn(sql);
          await sql.exec('commit');
          return value;
        } catch (error) {
          await sql.exec('rollback').catch(dispose);
          throw error;
        }
      }),
  };
}

function pgPort(client: pg.ClientBase, named: boolean): TransactionSql {
  return {
    ...pgSql(client, named),
    // Without values `pg` sends a simple query, which may hold several statements.
    exec: async (text) => void (await client.query(text)),
    queryAfter: <Row>(
      leading: readonly BatchStatement[],
      text: string,
      params?: readonly unknown[],
      options?: SqlQueryOptions,
      trailing: readonly BatchStatement[] = [],
    ) => {
      const batched = (statement: BatchStatement) =>
        typeof statement === 'string'
          ? { text: statement }
          : { text: statement.text, values: statement.values, ...(named ? { name: statement.name } : {}) };
      return queryAfter<Row>(
        client,
        leading.map(batched),
        text,
        params,
        named ? options : undefined,
        trailing.map(batched),
      );
    },
  };
}

/** What PGlite runs of a batch statement: its text, with any values written in. */
const inlined = (statement: BatchStatement) => (typeof statement === 'string' ? statement : statement.inline);

function pglitePort(thread: PGliteThread): TransactionSql {
  return {
    ...pgliteSql(thread),
    exec: async (text) => void (await thread.exec(text)),
    queryAfter: <Row>(
      leading: readonly BatchStatement[],
      text: string,
      params?: readonly unknown[],
      options?: SqlQueryOptions,
      trailing: readonly BatchStatement[] = [],
    ) =>
      queryBetweenOnThread<Row>(
        thread,
        leading.map(inlined),
        text,
        params,
        trailing.map(inlined),
        options?.name,
      ),
  };
}

/**
 * `run()`'s statement (`text`, `name`), its duration told to `hooks` (no clock read when nobody
 * listens), in its span when tracing is on. Exported for bench/metrics-hooks.mjs, which measures it.
 */
export function timed<T>(hooks: PoolHooks, send: () => Promise<T>, text: string, name?: string): Promise<T> {
  const { span } = hooks;
  const run = span === undefined ? send : () => span(text, name, send);
  const observe = hooks.statement;
  if (observe === undefined) return run();
  const started = process.hrtime.bigint();
  const settled = () => observe(Number(process.hrtime.bigint() - started) / 1e9);
  const pending = run();
  pending.then(settled, settled);
  return pending;
}

/** `port`, refusing every statement once released; each statement told to `hooks`. */
function lentUntilReleased(
  port: TransactionSql,
  hooks: PoolHooks,
): { port: TransactionSql; release(): void } {
  let released = false;
  const refuse = () =>
    Promise.reject(
      new Error(
        'this connection went back to the pool: its transaction has ended; the statement was not sent',
      ),
    );
  return {
    release: () => {
      released = true;
    },
    port: {
      query: (text, params, options) =>
        released ? refuse() : timed(hooks, () => port.query(text, params, options), text, options?.name),
      exec: (text) => (released ? refuse() : timed(hooks, () => port.exec(text), text)),
      queryAfter: (leading, text, params, options, trailing) =>
        released
          ? refuse()
          : timed(
              hooks,
              () => port.queryAfter(leading, text, params, options, trailing),
              text,
              options?.name,
            ),
    },
  };
}

// The pool of each knex instance openDatabase made, for the functions that still take a knex handle
// to name their database (the gateway's own association, no field of knex's).
const pools = new WeakMap<Knex, SqlPool>();

/** Records that `knex` borrows from `pool` (openDatabase). */
export function registerPool(knex: Knex, pool: SqlPool): void {
  pools.set(knex, pool);
}

/** The pool `knex` borrows from; throws for a knex instance openDatabase did not make. */
export function sqlPoolOf(knex: Knex): SqlPool {
  const pool = pools.get(knex);
  if (pool === undefined) throw new Error('This knex instance was not opened by openDatabase (no SQL pool).');
  return pool;
}
