import type { Sql, SqlDatabase, SqlQueryOptions, SqlResult } from '@agw/capabilities';
import type { Knex } from 'knex';
import type pg from 'pg';
import type { PGliteThread } from './pglite-thread.js';
import { pgSql } from './sql-pg.js';
import { queryAfter } from './sql-pg-batch.js';
import { pgliteSql, queryBetweenOnThread } from './sql-pglite.js';

/**
 * The SQL port on the connection of a knex transaction, so statements run in the very transaction knex
 * opened (the access routes' idempotent runs, a domain's public routes), with no query builder and no
 * `?`-binding rewriting in between. The invoke route opens no knex transaction: it drives its own on a
 * pooled connection (src/db/pool-transaction.ts, src/idempotency/run-sql.ts).
 *
 * Why the transaction's own connection: a knex transaction holds one connection for its whole life;
 * its client (`makeTxClient` in knex/lib/execution/transaction.js) overrides `acquireConnection()` to
 * resolve exactly that connection and `releaseConnection()` to do nothing. On PostgreSQL the connection
 * is a `pg` Client, on knex-pglite it is the PGlite thread itself (knex-pglite's pool of one lends it
 * to one knex user at a time, and its BEGIN is a plain query on it). Rewriting `$n` into knex `?`
 * bindings instead would have to parse SQL (`?` in strings and in jsonb operators such as `?|`).
 * Savepoints are transactions on the same connection, so the port works inside them too.
 */
export function sqlOfKnexTransaction(trx: Knex.Transaction): TransactionSql {
  // One port per transaction: the chain's ports and the handler share it (and its bound connection).
  let port = ports.get(trx);
  if (port === undefined) {
    port = boundTo(trx);
    ports.set(trx, port);
  }
  return port;
}

const ports = new WeakMap<Knex.Transaction, TransactionSql>();

function boundTo(trx: Knex.Transaction): TransactionSql {
  let bound: Promise<TransactionSql> | undefined;
  const bind = async (): Promise<TransactionSql> =>
    portOf((await trx.client.acquireConnection()) as KnexConnection);
  const connection = () => {
    // knex refuses statements on a finished transaction; so does the port (a handler kept `ctx.sql`).
    if (trx.isCompleted()) throw new Error('The transaction of this SQL port has ended.');
    bound ??= bind();
    return bound;
  };
  return {
    query: async (text, params, options) => (await connection()).query(text, params, options),
    exec: async (text) => (await connection()).exec(text),
    queryAfter: async <Row>(
      leading: readonly string[],
      text: string,
      params?: readonly unknown[],
      options?: SqlQueryOptions,
      trailing?: readonly string[],
    ) => (await connection()).queryAfter<Row>(leading, text, params, options, trailing),
  };
}

/** The port plus what only the gateway uses: several statements in one round trip. */
export interface TransactionSql extends Sql {
  /** Runs `text` (one or more statements, no parameters) as one simple query. */
  exec(text: string): Promise<void>;
  /**
   * Runs `leading` (statements without parameters, e.g. a savepoint and the tenant), then `text`, then
   * `trailing` (e.g. a COMMIT, skipped when `text` fails); answers `text`'s result. On `pg` in one round
   * trip (src/db/sql-pg-batch.ts); on PGlite, in one message to its thread.
   */
  queryAfter<Row = Record<string, unknown>>(
    leading: readonly string[],
    text: string,
    params?: readonly unknown[],
    options?: SqlQueryOptions,
    trailing?: readonly string[],
  ): Promise<SqlResult<Row>>;
}

type KnexConnection = pg.ClientBase | PGliteThread;

function portOf(connection: KnexConnection): TransactionSql {
  if ('waitReady' in connection) {
    const port = pgliteSql(connection);
    return {
      ...port,
      exec: async (text) => void (await connection.exec(text)),
      queryAfter: <Row>(
        leading: readonly string[],
        text: string,
        params?: readonly unknown[],
        _options?: SqlQueryOptions,
        trailing?: readonly string[],
      ) => queryBetweenOnThread<Row>(connection, leading, text, params, trailing),
    };
  }
  return {
    ...pgSql(connection),
    // Without values `pg` sends a simple query, which may hold several statements.
    exec: async (text) => void (await connection.query(text)),
    queryAfter: <Row>(
      leading: readonly string[],
      text: string,
      params?: readonly unknown[],
      options?: SqlQueryOptions,
      trailing: readonly string[] = [],
    ) =>
      queryAfter<Row>(
        connection,
        leading.map((statement) => ({ text: statement })),
        text,
        params,
        options,
        trailing.map((statement) => ({ text: statement })),
      ),
  };
}

/**
 * A {@link SqlDatabase} on knex's pool, as the gateway's own role: `query` borrows a pooled connection
 * for one statement (on PGlite the single session, so it never interleaves with a knex transaction),
 * `transaction` is a knex transaction seen through {@link sqlOfKnexTransaction}.
 */
export function sqlDatabaseOfKnex(knex: Knex): SqlDatabase {
  return {
    async query(text, params, options) {
      const connection = (await knex.client.acquireConnection()) as KnexConnection;
      try {
        return await portOf(connection).query(text, params, options);
      } finally {
        await knex.client.releaseConnection(connection);
      }
    },
    transaction: (fn) => knex.transaction((trx) => fn(sqlOfKnexTransaction(trx))),
  };
}

/**
 * Lends `fn` one connection of knex's pool as a {@link TransactionSql}, for a transaction `fn` drives
 * itself (its BEGIN batched with its first statement: src/idempotency/run-sql.ts). `fn` calls
 * `dispose(error)` when the connection's transaction state is unknown (a failed ROLLBACK): knex's pool
 * then destroys it instead of lending it again. On PGlite the connection is the single session.
 */
export async function withKnexConnection<T>(
  knex: Knex,
  fn: (sql: TransactionSql, dispose: (error: unknown) => void) => Promise<T>,
): Promise<T> {
  const connection = (await knex.client.acquireConnection()) as KnexConnection;
  const lent = lentUntilReleased(portOf(connection));
  try {
    return await fn(lent.port, (error) => {
      (connection as { __knex__disposed?: unknown }).__knex__disposed = error;
    });
  } finally {
    lent.release();
    await knex.client.releaseConnection(connection);
  }
}

/**
 * `port`, refusing every statement once released: a handler that kept its `ctx.sql` (a statement it did
 * not await, a late timer) must not run it on a connection another request owns by then.
 */
function lentUntilReleased(port: TransactionSql): { port: TransactionSql; release(): void } {
  let released = false;
  const refuse = () =>
    Promise.reject(
      new Error('this connection went back to the pool with its transaction; the statement was not sent'),
    );
  return {
    release: () => {
      released = true;
    },
    port: {
      query: (text, params, options) => (released ? refuse() : port.query(text, params, options)),
      exec: (text) => (released ? refuse() : port.exec(text)),
      queryAfter: (leading, text, params, options, trailing) =>
        released ? refuse() : port.queryAfter(leading, text, params, options, trailing),
    },
  };
}

/** The SQL port of `db`: a knex transaction's connection, or knex's pool (one statement per checkout). */
export function sqlOfKnex(db: Knex | Knex.Transaction): Sql {
  return db.isTransaction ? sqlOfKnexTransaction(db as Knex.Transaction) : sqlDatabaseOfKnex(db);
}
