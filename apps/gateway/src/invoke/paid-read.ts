import type { ExecutableRun, Principal, SettleWrites } from '@agw/guard';
import { auditRowOf } from '../ports/audit-sink.js';
import { type CapabilityCall, type Executed, executeCapability } from './execute.js';
import type { InvokeRuntime } from './runtime.js';
import { UnitOfWork } from './unit-of-work.js';

/**
 * A paid read: the handler outside any transaction of the invoke's, then its charge and audit rows in
 * one short transaction of their own.
 *
 * The handler reads as the tenant one statement at a time (src/db/tenant-read.ts), as a free read's
 * does, so nothing holds a pooled connection — on PGlite the database's one session — while it works
 * without SQL: a Factur-X of the largest allowed invoice renders for seconds in the worker pool. The
 * chain settles with `returnWrites` (billing's charge and audit's records come back instead of being
 * written), and the run's transaction is only the two writes: BEGIN and the ledger row (WalletStore
 * `charge`), then the audit rows with COMMIT (src/invoke/unit-of-work.ts `transaction`). A refusal or a failure
 * has no charge: its audit rows alone, one statement.
 *
 * Budgets are unchanged: billing's check reads the wallet snapshot before the handler and takes no
 * lock, and a charge is an insert of a ledger row, as it was when the transaction spanned the handler
 * (docs/decisions.md). A scope charged before (a retry under the same X-Request-Id) is not charged
 * again: the answer then claims no cost and its audit record no charge, as billing's settle decided
 * when it wrote the charge itself.
 */
export async function runPaidRead(
  runtime: InvokeRuntime,
  run: ExecutableRun<Principal>,
  call: CapabilityCall,
): Promise<Executed> {
  const executed = await executeCapability(runtime, UnitOfWork.read(runtime.knex), run, call, {
    returnWrites: true,
  });
  const writes: SettleWrites = executed.writes ?? { audit: [] };
  const charged = await UnitOfWork.transaction(runtime.knex, async (unit) => {
    const made = writes.charge !== undefined && (await runtime.wallet.charge(writes.charge, unit)).charged;
    const records =
      writes.charge === undefined || made
        ? writes.audit
        : writes.audit.map((record) => ({ ...record, charged_credits: null }));
    await unit.writeAudit(records.map(auditRowOf));
    return made;
  });
  if (writes.charge === undefined || charged || executed.kind !== 'succeeded') return executed;
  const { cost: _notCharged, ...body } = executed.body;
  return { ...executed, body };
}
