import type { AuditRow } from './audit-rows.js';
import type { OpenTransaction } from './executor.js';

/**
 * Audit rows written inside a run's transaction wait here until the transaction's last statement of
 * the gateway's own, which writes them together with its own work: the stored answer of a long-running
 * invoke's idempotent run (src/idempotency/run-sql.ts), or one INSERT sent with the COMMIT
 * (src/ports/executor.ts `transact`). The rows commit or roll back with the transaction exactly as if
 * they had been inserted at once; only the round trip is saved. Nothing reads `audit_events` inside
 * the transaction in between.
 */
const staged = new WeakMap<OpenTransaction, AuditRow[]>();

/** Keeps `rows` for the statement that ends `transaction`'s gateway work. */
export function stageAuditRows(transaction: OpenTransaction, rows: readonly AuditRow[]): void {
  const list = staged.get(transaction);
  if (list === undefined) staged.set(transaction, [...rows]);
  else list.push(...rows);
}

/** The rows staged on `transaction`, removed from it (the caller writes them). */
export function takeStagedAuditRows(transaction: OpenTransaction): AuditRow[] {
  const rows = staged.get(transaction) ?? [];
  staged.delete(transaction);
  return rows;
}
