import type { Sql } from '@agw/capabilities';
import type { WalletSnapshot } from '@agw/guard';
import type { Knex } from 'knex';
import { sqlPoolOf, type TransactionSql } from '../db/pool.js';
import { transactionOnPool } from '../db/pool-transaction.js';
import { runAsTenant, runAsTenantUnsaved, runInTenantSavepoint } from '../db/tenant.js';
import { runAsTenantRead } from '../db/tenant-read.js';
import { type AuditBatcher, auditBatcherFor } from '../ports/audit-batcher.js';
import { type AuditRow, insertAuditRows } from '../ports/audit-rows.js';

/** A transaction we drive on one pooled connection, without knex: its port and what waits for COMMIT. */
export interface OpenTransaction {
  readonly sql: TransactionSql;
  /** Runs `fn` once the transaction committed; never after a rollback. */
  afterCommit(fn: () => void): void;
}

/** Why a port refuses to write in a {@link UnitOfWork.mutation}. */
export const MUTATION_WRITE =
  "The mutating invoke's transaction writes the chain's charge and records itself: execute with returnWrites.";

/** How a unit's handler reaches the database. */
type HandlerSql = 'per-statement' | 'owner-rolls-back' | 'savepoint';
/** Where a unit's chain ports write their audit rows and charge. */
type Writes = 'pool' | 'transaction' | 'caller';

/**
 * The unit of work of one invoke (or one job run): which connection the handler and the guard chain's
 * ports (audit, wallet, approvals, a job's row) use, and what waits for its end. One is opened per run
 * and handed explicitly to the chain (`execute(fn, { unit })`, src/guard's ports get it as their last
 * argument) and to the handler's context (src/invoke/handler-context.ts): nothing is found through
 * AsyncLocalStorage. The kinds differ only in how they open and close:
 *
 * - {@link read} (a free or paid read): no transaction. The handler borrows a pooled connection per
 *   statement as the tenant (src/db/tenant-read.ts); the ports read the pool and write audit rows
 *   group-committed (src/ports/audit-batcher.ts). A paid read's charge and records are returned by the
 *   settle and written afterwards in a {@link transaction} of their own (src/invoke/paid-read.ts).
 * - {@link mutation}: the idempotent runner's transaction (src/idempotency/run-sql.ts), which it opens
 *   with the key's hold (and the wallet snapshot, primed here for billing's check) and closes with its
 *   answer. The handler runs as the tenant without a savepoint (a failure rolls the whole transaction
 *   back); the ports write nothing: the settle returns its writes and the runner writes them.
 * - {@link transaction}: a transaction this unit opens on the pool and commits (a job's run, a
 *   long-running read's acceptance, a paid read's writes). The ports write in it, their audit rows in
 *   one INSERT sent with the COMMIT; a mutating handler runs in a savepoint, so its failure's record
 *   still commits.
 * - {@link within}: the same, inside the idempotent runner's transaction (a long-running mutation's
 *   acceptance): the runner takes the staged audit rows ({@link takeAuditRows}) into its answer.
 *
 * Staged mail goes out once the transaction commits (for a read: once its handler returned).
 */
export class UnitOfWork {
  /** Where the chain's ports read (and, unless the caller writes, write): the transaction, or the pool. */
  readonly sql: Sql;
  readonly #knex: Knex | undefined;
  readonly #transaction: OpenTransaction | undefined;
  readonly #handlerSql: HandlerSql;
  readonly #writes: Writes;
  readonly #batcher: AuditBatcher | undefined;
  #primed: WalletSnapshot | undefined;
  #staged: AuditRow[] = [];

  private constructor(
    shape: {
      readonly sql: Sql;
      readonly handlerSql: HandlerSql;
      readonly writes: Writes;
      readonly knex?: Knex;
      readonly transaction?: OpenTransaction;
    },
    primed?: WalletSnapshot,
  ) {
    this.sql = shape.sql;
    this.#knex = shape.knex;
    this.#transaction = shape.transaction;
    this.#handlerSql = shape.handlerSql;
    this.#writes = shape.writes;
    this.#batcher = shape.knex === undefined ? undefined : auditBatcherFor(shape.knex);
    this.#primed = primed;
  }

  /** A read (free or paid) on the pool `knex`: no transaction, nothing held between statements. */
  static read(knex: Knex): UnitOfWork {
    return new UnitOfWork({
      sql: sqlPoolOf(knex),
      handlerSql: 'per-statement',
      writes: 'pool',
      knex,
    });
  }

  /**
   * The mutating invoke's own transaction `open` (src/idempotency/run-sql.ts); `snapshot`, read with
   * the key's hold in its first round trip, is what billing's wallet read of its organization answers.
   */
  static mutation(open: OpenTransaction, snapshot: WalletSnapshot | undefined): UnitOfWork {
    return new UnitOfWork(
      { sql: open.sql, handlerSql: 'owner-rolls-back', writes: 'caller', transaction: open },
      snapshot,
    );
  }

  /** The ports write in `open`, which its owner commits: it takes the staged audit rows ({@link takeAuditRows}). */
  static within(open: OpenTransaction, snapshot: WalletSnapshot | undefined): UnitOfWork {
    return new UnitOfWork(
      { sql: open.sql, handlerSql: 'savepoint', writes: 'transaction', transaction: open },
      snapshot,
    );
  }

  /**
   * Runs `work` in a new transaction on a pooled connection of `knex`: its BEGIN goes with the first
   * statement, the staged audit rows in one INSERT with the COMMIT, then what waits for the commit
   * (staged mail) runs. A throw rolls everything back.
   */
  static async transaction<T>(knex: Knex, work: (unit: UnitOfWork) => Promise<T>): Promise<T> {
    const committed: Array<() => void> = [];
    const value = await transactionOnPool(knex, async ({ sql, committing }) => {
      const transaction: OpenTransaction = { sql, afterCommit: (fn) => committed.push(fn) };
      const unit = new UnitOfWork({ sql, handlerSql: 'savepoint', writes: 'transaction', transaction });
      const result = await work(unit);
      await insertAuditRows(committing, unit.takeAuditRows());
      return result;
    });
    for (const fn of committed) fn();
    return value;
  }

  /**
   * Runs a handler's `work` as `organizationId`'s runtime role (row-level security holds whatever its
   * SQL says), the way this unit runs handlers; `committed` runs once its writes are durable.
   */
  runHandler<T>(
    organizationId: string,
    mutating: boolean,
    work: (sql: Sql) => Promise<T>,
    committed: () => void,
  ): Promise<T> {
    const transaction = this.#transaction;
    if (transaction === undefined) return this.#runRead(organizationId, work, committed);
    transaction.afterCommit(committed);
    // The owner rolls the whole transaction back on failure, so no savepoint; it resets the role.
    if (this.#handlerSql === 'owner-rolls-back')
      return runAsTenantUnsaved(transaction.sql, organizationId, work);
    // A read has nothing to undo; a mutating handler's writes roll back alone, its failure's record commits.
    return mutating
      ? runInTenantSavepoint(transaction.sql, organizationId, work)
      : runAsTenant(transaction.sql, organizationId, work);
  }

  async #runRead<T>(organizationId: string, work: (sql: Sql) => Promise<T>, committed: () => void) {
    const value = await runAsTenantRead(this.#knex as Knex, organizationId, work);
    committed();
    return value;
  }

  /** Writes the chain's audit rows: group-committed on the pool, or staged for the transaction's end. */
  writeAudit(rows: readonly AuditRow[]): Promise<void> | undefined {
    if (this.#writes === 'pool') return (this.#batcher as AuditBatcher).write(rows);
    if (this.#writes === 'caller') throw new Error(MUTATION_WRITE);
    this.#staged.push(...rows);
    return undefined;
  }

  /** Where a port writes (the charge): {@link sql}, unless the caller writes the chain's writes itself. */
  writeSql(): Sql {
    if (this.#writes === 'caller') throw new Error(MUTATION_WRITE);
    return this.sql;
  }

  /** The audit rows staged in this unit's transaction, removed from it (the caller writes them). */
  takeAuditRows(): AuditRow[] {
    const rows = this.#staged;
    this.#staged = [];
    return rows;
  }

  /** The snapshot this unit was opened with, for `organizationId`, once. */
  takeSnapshot(organizationId: string): WalletSnapshot | undefined {
    const primed = this.#primed;
    if (primed?.organization_id !== organizationId) return undefined;
    this.#primed = undefined;
    return primed;
  }
}

/** The gateway's unit of work a guard port was handed, if any (none: the admission's ports, on the pool). */
export function unitOf(unit: unknown): UnitOfWork | undefined {
  if (unit === undefined || unit instanceof UnitOfWork) return unit;
  throw new Error("A gateway port was handed something that is not the gateway's UnitOfWork.");
}
