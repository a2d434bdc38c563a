import type { Sql } from '@agw/capabilities';
import type { PGlite } from '@electric-sql/pglite';
import type { Knex } from 'knex';
import type pg from 'pg';
import { transactionOnPool } from './pool-transaction.js';
import type { TransactionSql } from './sql-knex.js';
import { type LeadingStatement, queryAfter } from './sql-pg-batch.js';
import { enterTenantText, RUNTIME_ROLE } from './tenant.js';

// The tenant of one statement: role and organization local to the transaction (`true`), which for a
// statement sent in the same extended-protocol batch (one Sync) is the batch's implicit transaction.
const ENTER_TEXT = `select set_config('role', '${RUNTIME_ROLE}', true), set_config('agw.organization_id', $1, true)`;

/** The SQL port on one `pg` connection where every statement runs as `organizationId`'s runtime role. */
function pgTenantSql(client: pg.ClientBase, organizationId: string): Sql {
  const tenant: LeadingStatement = { text: ENTER_TEXT, values: [organizationId] };
  return { query: (text, params, options) => queryAfter(client, [tenant], text, params, options) };
}

/**
 * Runs a free read's handler as `organizationId`'s runtime role on one pooled connection.
 *
 * On PostgreSQL without BEGIN or COMMIT: each of the handler's statements travels with the tenant's
 * `set_config` in one round trip and one implicit transaction (src/db/sql-pg-batch.ts), so a
 * one-statement read is one round trip, where an explicit transaction takes three. Row-level security
 * holds for each statement all the same. What a transaction would add for a read is nothing under READ
 * COMMITTED: every statement takes its own snapshot there anyway.
 *
 * On PGlite ({@link transactionAsTenant}): `begin; select set_config(…)`, the statements, `commit` —
 * calls into the same process, where a round trip costs no socket write.
 */
export async function runAsTenantRead<T>(
  knex: Knex,
  organizationId: string,
  work: (sql: Sql) => Promise<T>,
): Promise<T> {
  // Checked here for both engines (enterTenantText throws on anything but a UUID).
  const enter = enterTenantText(organizationId);
  // knex-pglite's client holds its PGlite instance (src/db/knex.ts); knex's pg client has none.
  if ((knex.client as { pglite?: PGlite }).pglite !== undefined)
    return inTenantTransaction(knex, enter, work);
  const connection = (await knex.client.acquireConnection()) as pg.ClientBase;
  try {
    return await work(pgTenantSql(connection, organizationId));
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

/**
 * Runs `work` in a transaction on one pooled connection as `organizationId`'s runtime role from its
 * first statement: `begin; select set_config(…)` as one simple query, COMMIT when `work` resolves,
 * ROLLBACK when it throws; the role ends with the transaction.
 */
export function transactionAsTenant<T>(
  knex: Knex,
  organizationId: string,
  work: (sql: TransactionSql) => Promise<T>,
): Promise<T> {
  return inTenantTransaction(knex, enterTenantText(organizationId), work);
}

function inTenantTransaction<T>(
  knex: Knex,
  enter: string,
  work: (sql: TransactionSql) => Promise<T>,
): Promise<T> {
  return transactionOnPool(knex, async ({ sql }) => {
    // The pool transaction sends its BEGIN with this first statement.
    await sql.exec(enter);
    return work(sql);
  });
}
