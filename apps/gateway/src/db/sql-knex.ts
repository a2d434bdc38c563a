import type { Sql, SqlDatabase } from '@agw/capabilities';
import type { Knex } from 'knex';
import { sqlOfKnexTransaction } from './knex-transaction.js';
import { sqlPoolOf, type TransactionSql } from './pool.js';

// The SQL port for code that still names its database by a knex handle: every statement goes through
// the gateway's pool (src/db/pool.ts), which knex itself borrows from.
export { knexTransaction, sqlOfKnexTransaction } from './knex-transaction.js';
export type { TransactionSql } from './pool.js';

/**
 * A {@link SqlDatabase} on the gateway's pool, as the gateway's own role: `query` borrows a pooled
 * connection for one statement (on PGlite the single session, so it never interleaves with a knex
 * transaction), `transaction` holds one between BEGIN and COMMIT.
 */
export function sqlDatabaseOfKnex(knex: Knex): SqlDatabase {
  return sqlPoolOf(knex);
}

/**
 * Lends `fn` one connection of the pool as a {@link TransactionSql}, for a transaction `fn` drives
 * itself (its BEGIN batched with its first statement: src/idempotency/run-sql.ts). `fn` calls
 * `dispose(error)` when the connection's transaction state is unknown (a failed ROLLBACK): the pool
 * then closes it instead of lending it again. On PGlite the connection is the single session.
 */
export function withKnexConnection<T>(
  knex: Knex,
  fn: (sql: TransactionSql, dispose: (error: unknown) => void) => Promise<T>,
): Promise<T> {
  return sqlPoolOf(knex).connection(fn);
}

/** The SQL port of `db`: a knex transaction's connection (see knexTransaction), or the pool. */
export function sqlOfKnex(db: Knex | Knex.Transaction): Sql {
  return db.isTransaction ? sqlOfKnexTransaction(db as Knex.Transaction) : sqlPoolOf(db);
}
