import type { Sql } from '@agw/capabilities';
import type { Knex } from 'knex';
import { sqlOfKnexTransaction } from './knex-transaction.js';
import { sqlPoolOf } from './pool.js';

// The SQL port for code that still names its database by a knex handle: every statement goes through
// the gateway's pool (src/db/pool.ts), which knex itself borrows from.
export { knexTransaction, sqlOfKnexTransaction } from './knex-transaction.js';
export type { TransactionSql } from './pool.js';

/** The SQL port of `db`: a knex transaction's connection (see knexTransaction), or the pool. */
export function sqlOfKnex(db: Knex | Knex.Transaction): Sql {
  return db.isTransaction ? sqlOfKnexTransaction(db as Knex.Transaction) : sqlPoolOf(db);
}
