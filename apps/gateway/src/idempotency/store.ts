import { runStatement, type Sql } from '@agw/capabilities';
import type { ChargeRequest, WalletSnapshot } from '@agw/guard';
import type { Knex } from 'knex';
import { type BatchStatement, sqlPoolOf, type TransactionSql } from '../db/pool.js';
import { sqlOfKnexTransaction } from '../db/sql-knex.js';
import { type AuditRow, auditRowParams, auditRowsParam } from '../ports/audit-rows.js';
import { type SnapshotRow, snapshotOfRow, snapshotWindows } from '../ports/wallet-store.js';
import type { SecretBox } from '../secrets/secret-box.js';
import {
  CLAIM,
  COMPLETE,
  DISCARD,
  FENCE,
  HOLD,
  HOLD_SNAPSHOT,
  holdLockStatement,
  READ,
  REAP,
  RELEASE,
  STORE_ANSWER,
  STORE_ONE_OR_FAIL,
  STORE_OR_FAIL,
  TAKE_OVER,
} from './statements.js';
import { inProgress, responseParams, type StoredResponse, type StoredRow, storedFor } from './stored-row.js';

export type { StoredResponse } from './stored-row.js';

/**
 * Who owns an idempotency key: (organization or `anonymous`, API key id or route, the key). Given to
 * the store, `key` is the keyed hash (`hashIdempotencyKey`), never the client's key in clear.
 */
export interface IdempotencyScope {
  readonly tenant: string;
  readonly principal: string;
  readonly key: string;
}

/** What {@link IdempotencyStore.begin} decided. */
export type BeginResult =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'replay'; readonly response: StoredResponse };

/**
 * Timing of the store: lease 15 s, retention 24 h (security rules §1.2).
 *
 * The lease is shorter than rule 13's "≥ the request timeout" because here it only has to cover the
 * gap from the claim to the fence, the first statement of the business transaction (a pool checkout,
 * bounded at 4 s on PostgreSQL). From the fence on, the row lock held until commit keeps a taker-over
 * waiting, and the fence turns away a holder that lost its lease, so a short lease never lets a request
 * run twice. What it bounds is how long the claim of a crashed process blocks the client's retries
 * (409 `idempotency_request_in_progress`): tests/reliability/sigkill.test.ts.
 */
export interface IdempotencyTimings {
  readonly leaseSeconds?: number;
  readonly retentionSeconds?: number;
}

const DEFAULT_LEASE_SECONDS = 15;
const REAP_EVERY_MS = 10 * 60_000;
const REAP_BATCH = 1000;

/** What the stored answer's statement writes. */
export interface AnswerInput {
  readonly scope: IdempotencyScope;
  readonly requestId: string;
  readonly response: StoredResponse;
  readonly encrypt: boolean;
  /** Every audit row of the transaction, in order. */
  readonly rows: readonly AuditRow[];
}

/** What a held run's answer writes ({@link IdempotencyStore.hold}). */
export interface HeldAnswerInput {
  readonly scope: IdempotencyScope;
  /** The request's fingerprint, stored with the answer. */
  readonly fingerprint: string;
  readonly response: StoredResponse;
  readonly encrypt: boolean;
  /** Every audit row of the transaction, in order. */
  readonly rows: readonly AuditRow[];
  /** The run's charge, written once per scope. */
  readonly charge?: ChargeRequest | undefined;
  /** Statements sent ahead in the same round trip (the role reset). */
  readonly leading?: readonly BatchStatement[];
}

/** What {@link IdempotencyStore.hold} found: the key is this run's, or its answer is stored. */
export type HoldResult =
  | { readonly kind: 'held'; readonly snapshot?: WalletSnapshot }
  | { readonly kind: 'replay'; readonly response: StoredResponse };

/** The hold's row: whether the lock was taken, and the scope's row (all null when there is none). */
interface HoldRow extends Omit<StoredRow, 'fingerprint'> {
  locked: boolean;
  fingerprint: string | null;
}

/**
 * The PostgreSQL-arbitrated idempotency record (security rules §1.3), two ways. The access endpoints
 * ({@link begin}, {@link fence}, {@link complete}): a claim with a lease measured on the database clock,
 * fencing by `locked_by`, completion inside the caller's business transaction, and release on rollback.
 * The mutating invoke ({@link hold}, {@link storeAndCommit}): the key held by the run's own transaction
 * and the answer inserted once at its end. Works across instances because the primary key decides, not
 * process memory; each way treats the other's live row as a request in progress.
 */
export class IdempotencyStore {
  readonly #sql: Sql;
  readonly #lease: number;
  readonly #retention: number;
  #lastReap = 0;

  constructor(
    knex: Knex,
    private readonly box: SecretBox,
    timings: IdempotencyTimings = {},
  ) {
    this.#sql = sqlPoolOf(knex);
    this.#lease = timings.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
    this.#retention = timings.retentionSeconds ?? 24 * 3600;
  }

  /** The retention window in seconds (published in the README). */
  get retentionSeconds(): number {
    return this.#retention;
  }

  /**
   * Claims the key for `requestId`, or decides without running anything: a stored answer → replay;
   * another fingerprint → 409 `idempotency_key_reused`; a live lease → 409
   * `idempotency_request_in_progress` (retry after 1 s); an expired lease → taken over.
   */
  async begin(scope: IdempotencyScope, fingerprint: string, requestId: string): Promise<BeginResult> {
    this.reapSoon();
    for (let round = 0; round < 3; round += 1) {
      const claimed = await runStatement(this.#sql, CLAIM, [
        scope.tenant,
        scope.principal,
        scope.key,
        fingerprint,
        requestId,
        this.#lease,
        this.#retention,
      ]);
      if (claimed.rows.length > 0) return { kind: 'claimed' };

      const row = await this.read(scope);
      if (!row) continue; // reaped between the two statements: claim again
      const response = storedFor(this.box, row, fingerprint);
      if (response !== undefined) return { kind: 'replay', response };
      const taken = await runStatement(this.#sql, TAKE_OVER, [
        scope.tenant,
        scope.principal,
        scope.key,
        requestId,
        this.#lease,
      ]);
      if (taken.rows.length > 0) return { kind: 'claimed' };
    }
    throw inProgress();
  }

  /**
   * Inside the business transaction: locks the row if `requestId` still holds it (fencing), else
   * throws so the whole transaction rolls back. Call before any business write.
   */
  async fence(trx: Knex.Transaction, scope: IdempotencyScope, requestId: string): Promise<void> {
    const held = await runStatement(sqlOfKnexTransaction(trx), FENCE, [...scopeParams(scope), requestId]);
    if (held.rows.length === 0) throw inProgress();
  }

  /**
   * Inside the business transaction: stores the answer (encrypted when it carries a secret). `auditRow`,
   * when given, is inserted into `audit_events` by the same statement (one round trip fewer).
   */
  async complete(
    trx: Knex.Transaction,
    scope: IdempotencyScope,
    requestId: string,
    response: StoredResponse,
    encrypt: boolean,
    auditRow?: AuditRow,
  ): Promise<void> {
    const rows = auditRow === undefined ? [] : [auditRow];
    const done = await this.answer(sqlOfKnexTransaction(trx), { scope, requestId, response, encrypt, rows });
    if (!done) throw inProgress();
  }

  /**
   * Inside the business transaction, instead of {@link complete}: deletes the fenced claim, so the
   * transaction's other writes (audit rows) commit but nothing is stored under the key and a later
   * request with it runs. `auditRow` is inserted by the same statement.
   */
  async discard(
    trx: Knex.Transaction,
    scope: IdempotencyScope,
    requestId: string,
    auditRow: AuditRow,
  ): Promise<void> {
    if (!(await this.discardOn(sqlOfKnexTransaction(trx), scope, requestId, [auditRow]))) throw inProgress();
  }

  /**
   * The first round trip of a transaction the caller drives on one connection (the invoke's run,
   * src/idempotency/run-sql.ts): BEGIN, the key held by this transaction until it ends (statements.ts
   * `holdLockStatement`), the scope's row (HOLD), and the wallet snapshot of `wallet.organizationId` when
   * given (a paid run: billing reads it next). Answers the stored response to replay instead; throws
   * `idempotency_request_in_progress` while another request holds the key and `idempotency_key_reused`
   * for another request's key. The caller ends the transaction in every case.
   */
  async hold(
    sql: TransactionSql,
    scope: IdempotencyScope,
    fingerprint: string,
    wallet?: { readonly organizationId: string; readonly now: Date },
  ): Promise<HoldResult> {
    const params = scopeParams(scope);
    const leading = ['begin', holdLockStatement(scope.tenant, scope.principal, scope.key)];
    const held =
      wallet === undefined
        ? await sql.queryAfter<HoldRow>(leading, HOLD.text, params, { name: HOLD.name })
        : await sql.queryAfter<HoldRow & SnapshotRow>(
            leading,
            HOLD_SNAPSHOT.text,
            [...params, wallet.organizationId, ...snapshotWindows(wallet.now)],
            { name: HOLD_SNAPSHOT.name },
          );
    const row = held.rows[0] as (HoldRow & Partial<SnapshotRow>) | undefined;
    if (row === undefined) throw new Error('the hold read no row');
    if (row.fingerprint !== null) {
      const response = storedFor(this.box, row as StoredRow, fingerprint);
      if (response !== undefined) return { kind: 'replay', response };
    }
    // Another run of the key holds it (a replay needs no lock, above).
    if (!row.locked) throw inProgress();
    if (wallet === undefined) return { kind: 'held' };
    return { kind: 'held', snapshot: snapshotOfRow(wallet.organizationId, row as SnapshotRow) };
  }

  /**
   * Stores the answer of a held run whose transaction was rolled back (a refusal), with its audit rows, in
   * one autocommitted statement on `sql`. False when an answer is stored already (see STORE_ANSWER).
   */
  async storeAnswer(sql: Sql, input: HeldAnswerInput): Promise<boolean> {
    const stored = await runStatement(sql, STORE_ANSWER, this.storeParams(input));
    return stored.rowCount === 1;
  }

  /**
   * Stores the answer of a held run, writes its charge (if any) and audit rows, and COMMITs, in one
   * round trip after `leading`: the transaction commits only with the answer stored. When nothing was
   * stored (an answer is stored already, or the charge's scope was charged before) it rejects with an
   * error `notStoredReason` (statements.ts) tells apart; the caller then rolls back.
   */
  async storeAndCommit(sql: TransactionSql, input: HeldAnswerInput): Promise<void> {
    const [only, ...more] = input.rows;
    const [statement, params] =
      only !== undefined && more.length === 0
        ? [STORE_ONE_OR_FAIL, [...this.answerParams(input), this.#retention, ...auditRowParams(only)]]
        : [STORE_OR_FAIL, this.storeParams(input)];
    await sql.queryAfter(input.leading ?? [], statement.text, params, { name: statement.name }, ['commit']);
  }

  /** Stores the answer of the request path (COMPLETE): false when the claim was lost. */
  private async answer(sql: Sql, input: AnswerInput): Promise<boolean> {
    const { response, encrypt } = input;
    const updated = await runStatement(sql, COMPLETE, [
      ...scopeParams(input.scope),
      input.requestId,
      ...responseParams(this.box, response, encrypt),
      null,
      null,
      null,
      null,
      null,
      auditRowsParam(input.rows),
    ]);
    return updated.rowCount === 1;
  }

  private storeParams(input: HeldAnswerInput): unknown[] {
    return [...this.answerParams(input), auditRowsParam(input.rows), this.#retention];
  }

  /** $1–$13 of the store statements: the scope, the request's fingerprint, the response, the charge. */
  private answerParams(input: HeldAnswerInput): unknown[] {
    const { charge } = input;
    return [
      ...scopeParams(input.scope),
      input.fingerprint,
      ...responseParams(this.box, input.response, input.encrypt),
      charge?.organization_id ?? null,
      charge?.amount_credits ?? null,
      charge?.idempotency_scope ?? null,
      charge?.capability_id ?? null,
      charge?.occurred_at ?? null,
    ];
  }

  /** {@link discard} on `sql` with `rows`; false when the claim was lost. */
  async discardOn(
    sql: Sql,
    scope: IdempotencyScope,
    requestId: string,
    rows: readonly AuditRow[],
  ): Promise<boolean> {
    const deleted = await runStatement(sql, DISCARD, [
      ...scopeParams(scope),
      requestId,
      auditRowsParam(rows),
    ]);
    return deleted.rowCount === 1;
  }

  /** After a rollback: deletes the claim so a retry with the same key runs again. */
  async release(scope: IdempotencyScope, requestId: string): Promise<void> {
    await runStatement(this.#sql, RELEASE, [...scopeParams(scope), requestId]);
  }

  /** Deletes up to `batch` expired rows (their ciphertexts with them); returns how many. */
  async reap(batch = REAP_BATCH): Promise<number> {
    const result = await runStatement(this.#sql, REAP, [batch]);
    return result.rowCount;
  }

  // The reaper runs on access, at most every ten minutes per process, and never delays the request.
  private reapSoon(): void {
    const now = Date.now();
    if (now - this.#lastReap < REAP_EVERY_MS) return;
    this.#lastReap = now;
    this.reap().catch(() => {});
  }

  private async read(scope: IdempotencyScope): Promise<StoredRow | undefined> {
    const result = await runStatement<StoredRow>(this.#sql, READ, scopeParams(scope));
    return result.rows[0];
  }
}

function scopeParams(scope: IdempotencyScope): string[] {
  return [scope.tenant, scope.principal, scope.key];
}
