import type { ChargeRequest, WalletSnapshot } from '@agw/guard';
import { sqlPoolOf } from '../db/pool.js';
import { EXIT_STATEMENT } from '../db/tenant.js';
import { GatewayError } from '../http/gateway-error.js';
import type { OpenTransaction } from '../invoke/unit-of-work.js';
import { type AuditRow, insertAuditRows } from '../ports/audit-rows.js';
import {
  freshAnswer,
  type IdempotentAnswer,
  type IdempotentCall,
  isSuccess,
  type MutationOutcome,
  ReleasedRefusal,
  type Rendered,
  type RunIdempotentOptions,
  render,
  replayAnswer,
  runKey,
  storedAnswer,
} from './run.js';
import { notStoredReason } from './statements.js';
import type { StoredResponse } from './store.js';
import { inProgress } from './stored-row.js';

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
 * The idempotent run of a mutating invoke in three round trips to PostgreSQL (a handler with one
 * statement), on one pooled connection whose transaction it drives itself (no knex transaction, no
 * savepoint), the key held by that transaction alone — nothing is written under it before the answer:
 *
 * 1. BEGIN, the hold of the key (a transaction-level advisory lock, src/idempotency/statements.ts
 *    `holdLockStatement`) and its stored row — and the wallet snapshot of a paid run, handed to `run` for billing's
 *    check — in one batch; a stored answer is replayed, a held key answered 409 at once;
 * 2. the handler's statement(s), the tenant's role riding with the first (src/db/tenant.ts);
 * 3. the role reset, one statement inserting the stored answer, the charge and every audit row, and
 *    COMMIT, in one batch: the statement fails when it stored nothing, so the COMMIT is skipped.
 *
 * A refusal (the handler's own decision, or a guard's before the handler) rolls the transaction back —
 * whatever the handler wrote goes with it, which is what a savepoint was for — and then records the
 * refusal in one autocommitted statement: the stored answer and its audit rows, or, for a guard's
 * refusal, the audit rows alone (nothing is stored under the key). A throw rolls back, and the key is
 * free again with it. So is a crashed process's key: its transaction ends with its connection.
 * On PGlite the same statements go one after the other (calls into the same process).
 */
export async function answerIdempotentOnSql(
  call: IdempotentCall,
  options: SqlRunOptions,
  run: (open: OpenTransaction, snapshot: WalletSnapshot | undefined) => Promise<WrittenOutcome>,
): Promise<IdempotentAnswer> {
  const { store } = options;
  const key = runKey(call, options);
  const { scope, fingerprint } = key;
  const committed: Array<() => void> = [];
  const ran = await sqlPoolOf(options.knex).connection(
    async (sql, dispose): Promise<{ replay: StoredResponse } | { answer: Rendered }> => {
      const rollback = () => sql.exec('rollback').catch(dispose);
      const held = await store.hold(sql, scope, fingerprint, options.wallet).catch(async (error) => {
        await rollback();
        throw error;
      });
      if (held.kind === 'replay') {
        await rollback();
        return { replay: held.response };
      }
      const open: OpenTransaction = { sql, afterCommit: (fn) => committed.push(fn) };
      let written: WrittenOutcome;
      let rendered: Rendered;
      let rows: readonly AuditRow[];
      try {
        written = await run(open, held.snapshot);
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
        if (outcome instanceof ReleasedRefusal) {
          await insertAuditRows(sql, rows);
        } else {
          const stored = storedAnswer(outcome, rendered, options.encrypt);
          // The key was free from the ROLLBACK on: a racer's answer may have been stored since.
          if (!(await store.storeAnswer(sql, { scope, fingerprint, ...stored, rows }))) throw inProgress();
        }
        return { answer: rendered };
      }
      try {
        // The role reset ahead (the handler ran as the tenant's runtime role: the gateway's own writes go
        // as its own role), the answer, charge and audit rows, and COMMIT: one round trip.
        await store.storeAndCommit(sql, {
          scope,
          fingerprint,
          ...storedAnswer(outcome, rendered, options.encrypt),
          rows,
          charge: written.charge,
          leading: [EXIT_STATEMENT],
        });
      } catch (error) {
        await rollback();
        const reason = notStoredReason(error);
        // Stored already: a request-path claim of the same scope made since the hold read it (another
        // route under the same key), answered as that claim's other requests are.
        throw reason === 'charged' ? chargedBefore() : reason === 'stored' ? inProgress() : error;
      }
      const after = outcome.afterCommit;
      if (after !== undefined) committed.push(after);
      return { answer: rendered };
    },
  );
  if ('replay' in ran) return replayAnswer(call, options, key.keyHash, ran.replay);
  for (const fn of committed) fn();
  return freshAnswer(ran.answer);
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
