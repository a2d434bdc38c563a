import type { ChargeRequest, WalletSnapshot } from '@agw/guard';
import { sqlPoolOf } from '../db/pool.js';
import { EXIT_STATEMENT } from '../db/tenant.js';
import { GatewayError } from '../http/gateway-error.js';
import type { OpenTransaction } from '../invoke/unit-of-work.js';
import type { AuditRow } from '../ports/audit-rows.js';
import {
  claimOrReplay,
  freshAnswer,
  type IdempotentAnswer,
  type IdempotentCall,
  isSuccess,
  type MutationOutcome,
  ReleasedRefusal,
  type Rendered,
  type RunIdempotentOptions,
  releaseClaim,
  render,
  storedAnswer,
} from './run.js';
import { isNotStored } from './statements.js';
import { inProgress } from './store.js';

/** What a run inside {@link answerIdempotentOnSql} hands back: its outcome and what to write with it. */
export interface WrittenOutcome {
  readonly outcome: MutationOutcome;
  /**
   * The guard chain's audit rows, in order: the run's one record (its outcome, with every guard's
   * decision and the idempotency key's hash), the audit trail of the mutation.
   */
  readonly auditRows: readonly AuditRow[];
  /** The id of that record: a refusal's envelope names it, as a success's body does. */
  readonly auditId: string;
  /** Billing's charge of a success, written by the answer's statement. */
  readonly charge?: ChargeRequest | undefined;
}

/** Options of {@link answerIdempotentOnSql}: those of the knex runner, plus the wallet to read. */
export interface SqlRunOptions extends RunIdempotentOptions {
  /** A paid run: the organization whose wallet snapshot is read with the fence, at `now`. */
  readonly wallet?: { readonly organizationId: string; readonly now: Date } | undefined;
}

/**
 * The idempotent run of a mutating invoke in four round trips to PostgreSQL (a handler with one
 * statement), on one pooled connection whose transaction it drives itself (no knex transaction, no
 * savepoint):
 *
 * 1. the claim, autocommitted so a racer sees it (`claimOrReplay`; a replay ends here);
 * 2. BEGIN and the fence — with the wallet snapshot of a paid run, handed to `run` for billing's check —
 *    in one batch;
 * 3. the handler's statement(s), the tenant's role riding with the first (src/db/tenant.ts);
 * 4. the role reset, one statement writing the stored answer, the charge and every audit row, and
 *    COMMIT, in one batch: the statement fails when it stored nothing, so the COMMIT is skipped.
 *
 * A refusal (the handler's own decision, or a guard's before the handler) rolls the transaction back —
 * whatever the handler wrote goes with it, which is what a savepoint was for — and then records the
 * refusal in one autocommitted statement: the stored (or, for a guard's refusal, discarded) answer and
 * its audit rows, still fenced by the claim's holder id. A throw rolls back and releases the claim.
 * On PGlite the same statements go one after the other (calls into the same process).
 */
export async function answerIdempotentOnSql(
  call: IdempotentCall,
  options: SqlRunOptions,
  run: (open: OpenTransaction, snapshot: WalletSnapshot | undefined) => Promise<WrittenOutcome>,
): Promise<IdempotentAnswer> {
  const { store } = options;
  const claimed = await claimOrReplay(call, options);
  if (claimed.kind === 'replay') return claimed.answer;
  const { scope, requestId } = claimed;
  const committed: Array<() => void> = [];
  let answer: Rendered;
  try {
    answer = await sqlPoolOf(options.knex).connection(async (sql, dispose) => {
      const rollback = () => sql.exec('rollback').catch(dispose);
      const fenced = await store.beginFenced(sql, scope, requestId, options.wallet).catch(async (error) => {
        await rollback();
        throw error;
      });
      if (fenced === undefined) {
        await rollback();
        throw inProgress();
      }
      const open: OpenTransaction = { sql, afterCommit: (fn) => committed.push(fn) };
      let written: WrittenOutcome;
      let rendered: Rendered;
      let rows: readonly AuditRow[];
      try {
        written = await run(open, fenced.snapshot);
        // Inside: a result that cannot be rendered (a BigInt, a cycle) must not leave the transaction open.
        rendered = render(written.outcome, written.auditId);
        rows = written.auditRows;
      } catch (error) {
        await rollback();
        throw error;
      }
      const { outcome } = written;
      if (!isSuccess(outcome)) {
        // Nothing the handler wrote may commit; the refusal and its audit rows do, on their own.
        committed.length = 0;
        await sql.exec('rollback').catch((error: unknown) => {
          dispose(error);
          throw error;
        });
        const recorded =
          outcome instanceof ReleasedRefusal
            ? await store.discardOn(sql, scope, requestId, rows)
            : await store.answer(sql, {
                scope,
                requestId,
                ...storedAnswer(outcome, rendered, options.encrypt),
                rows,
              });
        if (!recorded) throw inProgress();
        return rendered;
      }
      try {
        // The role reset ahead (the handler ran as the tenant's runtime role: the gateway's own writes go
        // as its own role), the answer, charge and audit rows, and COMMIT: one round trip.
        await store.answerAndCommit(sql, {
          scope,
          requestId,
          ...storedAnswer(outcome, rendered, options.encrypt),
          rows,
          charge: written.charge,
          leading: [EXIT_STATEMENT],
        });
      } catch (error) {
        await rollback();
        // Under the fence the claim cannot be lost, so the charge's scope was charged before.
        throw isNotStored(error) ? chargedBefore() : error;
      }
      const after = outcome.afterCommit;
      if (after !== undefined) committed.push(after);
      return rendered;
    });
  } catch (error) {
    await releaseClaim(call, store, scope, requestId);
    throw error;
  }
  for (const fn of committed) fn();
  return freshAnswer(answer);
}

/**
 * The charge of this key was made by an earlier run: the key was reused after its retention, or under
 * another API key of the same installation. Running again would be a free effect, so nothing runs.
 */
function chargedBefore(): GatewayError {
  return new GatewayError('idempotency_key_reused', {
    message: 'A run under this idempotency_key was already charged; use a fresh key for a new mutation.',
  });
}
