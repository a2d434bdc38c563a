import { runStatement, type Sql, type SqlStatement } from '@agw/capabilities';
import type { NamedBatchStatement, TransactionSql } from './pool.js';

/** The database role handler SQL runs as (gateway migration `20261125000000_runtime_role`). */
export const RUNTIME_ROLE = 'agw_runtime';

// The role and the tenant, both local to the transaction (`true`), so they end with its COMMIT or
// ROLLBACK — and with a ROLLBACK TO SAVEPOINT taken before them — whatever the handler did.
// `set_config('role', …)` is `SET LOCAL ROLE`; a superuser connection loses its RLS bypass with it.
const ENTER: SqlStatement = {
  name: 'agw.tenant.enter',
  text: `select set_config('role', '${RUNTIME_ROLE}', true), set_config('agw.organization_id', $1, true)`,
};

// Back to the connection's own role ('none' is what RESET ROLE sets) and no tenant: the chain's own
// bookkeeping after the handler (charge, audit) runs as the gateway again.
export const EXIT_TEXT = `select set_config('role', 'none', true), set_config('agw.organization_id', '', true)`;
const EXIT: SqlStatement = { name: 'agw.tenant.exit', text: EXIT_TEXT };

/** {@link EXIT_TEXT} ahead of another statement in one round trip (`TransactionSql.queryAfter`), prepared once per connection. */
export const EXIT_STATEMENT: NamedBatchStatement = {
  name: EXIT.name,
  text: EXIT_TEXT,
  values: [],
  inline: EXIT_TEXT,
};

const SAVEPOINT = 'agw_handler';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The statement that switches a transaction to `organizationId`'s runtime role, ahead of another in one
 * round trip: on `pg` prepared once per connection with the organization as its parameter (a text with
 * the id written in would be parsed and planned for every request); on PGlite as {@link enterTenantText}.
 */
export function enterTenantStatement(organizationId: string): NamedBatchStatement {
  return {
    name: ENTER.name,
    text: ENTER.text,
    values: [organizationId],
    inline: enterTenantText(organizationId),
  };
}

/**
 * The statement that switches a transaction to `organizationId`'s runtime role, as text for a simple
 * query (which carries no parameters, so the organization id is inlined after checking it is a UUID).
 */
export function enterTenantText(organizationId: string): string {
  if (!UUID.test(organizationId)) throw new Error('The organization id is not a UUID.');
  return (
    `select set_config('role', '${RUNTIME_ROLE}', true), ` +
    `set_config('agw.organization_id', '${organizationId}', true)`
  );
}

/** Switches `sql`'s transaction to the runtime role and `organizationId` until the transaction ends. */
export async function enterTenant(sql: Sql, organizationId: string): Promise<void> {
  await runStatement(sql, ENTER, [organizationId]);
}

/**
 * Runs `work` with `sql` acting as `organizationId`'s runtime role; `sql` must be inside a transaction.
 * Afterwards the role is reset. When `work` threw, the reset is tried but its failure ignored (a failed
 * statement aborted the transaction, whose rollback also ends the role): `work`'s error counts.
 */
export async function runAsTenant<T>(
  sql: Sql,
  organizationId: string,
  work: (sql: Sql) => Promise<T>,
): Promise<T> {
  await enterTenant(sql, organizationId);
  let value: T;
  try {
    value = await work(sql);
  } catch (error) {
    await runStatement(sql, EXIT, []).catch(() => undefined);
    throw error;
  }
  await runStatement(sql, EXIT, []);
  return value;
}

/**
 * Runs `work` in a savepoint as `organizationId`'s runtime role: its writes roll back on failure while
 * the transaction goes on (the failure's audit record still commits). The savepoint and the role go
 * out with the handler's first statement, in the same round trip (`TransactionSql.queryAfter`: on
 * `pg` one batch, src/db/sql-pg-batch.ts); the way back is one round trip (`select set_config(…);
 * RELEASE …`). A handler that sends no SQL costs neither. The leading statements carry no parameters,
 * so the organization id is inlined, after checking that it is a UUID (it comes from the verified key,
 * and the check makes that irrelevant). ROLLBACK TO SAVEPOINT also undoes the role and the tenant.
 */
export async function runInTenantSavepoint<T>(
  sql: TransactionSql,
  organizationId: string,
  work: (sql: Sql) => Promise<T>,
): Promise<T> {
  const enter = [`savepoint ${SAVEPOINT}`, enterTenantStatement(organizationId)];
  let entered = false;
  const tenant: Sql = {
    query(text, params, options) {
      if (entered) return sql.query(text, params, options);
      // Set before the first await: a second statement sent meanwhile queues behind this batch.
      entered = true;
      return sql.queryAfter(enter, text, params, options);
    },
  };
  let value: T;
  try {
    value = await work(tenant);
  } catch (error) {
    if (entered) await sql.exec(`rollback to savepoint ${SAVEPOINT}; release savepoint ${SAVEPOINT}`);
    throw error;
  }
  if (entered) await sql.exec(`${EXIT_TEXT}; release savepoint ${SAVEPOINT}`);
  return value;
}

/**
 * Runs `work` as `organizationId`'s runtime role in a transaction whose owner rolls it back whole when
 * `work` fails (the mutating invoke, src/idempotency/run-sql.ts): no savepoint. The tenant goes out
 * with the handler's first statement, in the same round trip; the way back ({@link EXIT_TEXT}) is left
 * to the owner, which sends it ahead of its own next statement. A handler that sends no SQL costs nothing.
 */
export function runAsTenantUnsaved<T>(
  sql: TransactionSql,
  organizationId: string,
  work: (sql: Sql) => Promise<T>,
): Promise<T> {
  const enter = [enterTenantStatement(organizationId)];
  let entered = false;
  return work({
    query(text, params, options) {
      if (entered) return sql.query(text, params, options);
      // Set before the first await: a second statement sent meanwhile queues behind this batch.
      entered = true;
      return sql.queryAfter(enter, text, params, options);
    },
  });
}
