import type { Sql } from '@agw/capabilities';

/** The database role handler SQL runs as (gateway migration `20261125000000_runtime_role`). */
export const RUNTIME_ROLE = 'agw_runtime';

// One round trip: the role and the tenant, both local to the transaction (`true`), so they end with its
// COMMIT or ROLLBACK — and with a ROLLBACK TO SAVEPOINT taken before them — whatever the handler did.
// `set_config('role', …)` is `SET LOCAL ROLE`; a superuser connection loses its RLS bypass with it.
const ENTER: { name: string; text: string } = {
  name: 'agw.tenant.enter',
  text: `select set_config('role', '${RUNTIME_ROLE}', true), set_config('agw.organization_id', $1, true)`,
};

// Back to the connection's own role ('none' is what RESET ROLE sets) and no tenant: the chain's own
// bookkeeping after the handler (charge, audit) runs as the gateway again.
const EXIT: { name: string; text: string } = {
  name: 'agw.tenant.exit',
  text: `select set_config('role', 'none', true), set_config('agw.organization_id', '', true)`,
};

/** Switches `sql`'s transaction to the runtime role and `organizationId` until the transaction ends. */
export async function enterTenant(sql: Sql, organizationId: string): Promise<void> {
  await sql.query(ENTER.text, [organizationId], { name: ENTER.name });
}

/**
 * Runs `work` with `sql` acting as `organizationId`'s runtime role; `sql` must be inside a transaction.
 * Afterwards the role is reset. When `work` threw, the reset is tried but its failure ignored (a failed
 * statement aborted the transaction or savepoint, whose rollback also ends the role): `work`'s error
 * is the one that counts.
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
    await sql.query(EXIT.text, [], { name: EXIT.name }).catch(() => undefined);
    throw error;
  }
  await sql.query(EXIT.text, [], { name: EXIT.name });
  return value;
}
