import type { Sql, SqlQueryOptions, SqlResult } from '@agw/capabilities';
import type { Knex } from 'knex';
import { type NamedBatchStatement, sqlPoolOf, type TransactionSql } from './pool.js';
import { enterTenantStatement } from './tenant.js';

const RUN_OVER = 'the read this statement belongs to is over; the statement was not sent';

/** Sends one statement as the tenant on a connection the caller borrowed for it alone. */
type TenantStatement = <Row>(
  connection: TransactionSql,
  text: string,
  params: readonly unknown[] | undefined,
  options: SqlQueryOptions | undefined,
) => Promise<SqlResult<Row>>;

/**
 * Runs a read's handler (free or paid) as `organizationId`'s runtime role, each of its statements in a
 * transaction of its own on a pooled connection borrowed for that statement alone: no connection is
 * held between two statements, nor while the handler works without SQL (a large document rendering in
 * the worker pool for seconds). Row-level security holds for each statement all the same. What one
 * transaction around the whole handler would add for a read is nothing under READ COMMITTED: every
 * statement takes its own snapshot there anyway.
 *
 * On PostgreSQL without BEGIN or COMMIT: each statement travels with the tenant's `set_config` in one
 * round trip and one implicit transaction (src/db/sql-pg-batch.ts), where an explicit transaction
 * takes three.
 *
 * On PGlite the pool's one connection is the database's only session: whatever holds it, every other
 * request waits for (/health, other organizations, the job worker). `begin; select set_config(…)`, the
 * statement and `commit` go to the database's thread in one message (src/db/sql-pglite.ts); a
 * failed statement is rolled back before the session goes back to the pool.
 *
 * A statement sent once the run is over (one the handler did not await) is refused, not run.
 */
export async function runAsTenantRead<T>(
  knex: Knex,
  organizationId: string,
  work: (sql: Sql) => Promise<T>,
): Promise<T> {
  // Checked here for both engines (enterTenantStatement throws on anything but a UUID).
  const enter = enterTenantStatement(organizationId);
  const pool = sqlPoolOf(knex);
  const send = pool.engine === 'postgres' ? pgStatement(enter) : pgliteStatement(enter);
  let over = false;
  const sql: Sql = {
    async query<Row>(text: string, params?: readonly unknown[], options?: SqlQueryOptions) {
      if (over) throw new Error(RUN_OVER);
      return pool.connection((connection) => send<Row>(connection, text, params, options));
    },
  };
  try {
    return await work(sql);
  } finally {
    over = true;
  }
}

// The tenant of one statement: role and organization local to the transaction (`true`), which for a
// statement sent in the same extended-protocol batch (one Sync) is the batch's implicit transaction.
function pgStatement(enter: NamedBatchStatement): TenantStatement {
  return (connection, text, params, options) => connection.queryAfter([enter], text, params, options);
}

function pgliteStatement(enter: NamedBatchStatement): TenantStatement {
  return async (connection, text, params, options) => {
    try {
      return await connection.queryAfter(['begin', enter], text, params, options, ['commit']);
    } catch (error) {
      // The COMMIT was skipped: end the failed transaction before another request gets the session.
      // A ROLLBACK fails only when the database itself is gone; the statement's error says more.
      await connection.exec('rollback').catch(() => undefined);
      throw error;
    }
  };
}
