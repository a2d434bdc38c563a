import type { Knex } from 'knex';
import type { AuditRow } from './audit-rows.js';

/**
 * Audit rows written inside an invoke's transaction wait here until the transaction's last statement
 * of the gateway's own, which writes them together with its own work: the stored answer of an
 * idempotent run (src/idempotency/store.ts `complete`/`discard`), or, when nothing else follows, one
 * INSERT as the executor's scope ends (src/ports/executor.ts). The rows commit or roll back with the
 * transaction exactly as if they had been inserted at once; only the round trip is saved. Nothing
 * reads `audit_events` inside the transaction in between.
 */
const staged = new WeakMap<Knex.Transaction, AuditRow[]>();

// Transactions whose idempotency claim was fenced: their answer (complete or discard, one of which
// always follows or the transaction rolls back) writes the staged rows.
const answered = new WeakSet<Knex.Transaction>();

/** Keeps `rows` for the statement that ends `trx`'s gateway work. */
export function stageAuditRows(trx: Knex.Transaction, rows: readonly AuditRow[]): void {
  const list = staged.get(trx);
  if (list === undefined) staged.set(trx, [...rows]);
  else list.push(...rows);
}

/** The rows staged on `trx`, removed from it (the caller writes them). */
export function takeStagedAuditRows(trx: Knex.Transaction): AuditRow[] {
  const rows = staged.get(trx) ?? [];
  staged.delete(trx);
  return rows;
}

/** Marks `trx` as ending with a stored (or discarded) idempotent answer that writes the staged rows. */
export function answerWritesStagedRows(trx: Knex.Transaction): void {
  answered.add(trx);
}

/** True when `trx`'s answer writes its staged rows, so the executor leaves them. */
export function stagedRowsAnswered(trx: Knex.Transaction): boolean {
  return answered.has(trx);
}
