import { AsyncLocalStorage } from 'node:async_hooks';
import type { Sql } from '@agw/capabilities';
import type { WalletSnapshot } from '@agw/guard';
import type { Knex } from 'knex';
import { transactionOnPool } from '../db/pool-transaction.js';
import { sqlDatabaseOfKnex, type TransactionSql } from '../db/sql-knex.js';
import { insertAuditRows } from './audit-rows.js';
import { takeStagedAuditRows } from './staged-audit.js';

/**
 * Which SQL connection the ports use: the transaction of the current run when there is one, the pool
 * otherwise. The guard chain is built once with fixed ports, so the transaction travels through
 * AsyncLocalStorage rather than through the ports' arguments. Every transaction is one we drive on a
 * pooled connection ourselves (src/db/pool-transaction.ts, src/idempotency/run-sql.ts); knex only
 * lends the connection.
 */
export interface SqlExecutor {
  /** The pool: the ports' statements outside a run's transaction, and the transactions they open. */
  readonly knex: Knex;
  /** The SQL port of the current transaction or connection, or of the pool (one statement per checkout). */
  sql(): Sql;
  /**
   * Runs `work` in a new transaction on a pooled connection, as the current transaction of every port
   * ({@link within}). The audit rows the ports staged go with the COMMIT, in its round trip; functions
   * given to `afterCommit` (staged mail) run once it committed. A throw rolls everything back.
   */
  transact<T>(work: (sql: TransactionSql) => Promise<T>): Promise<T>;
  /**
   * Runs `work` with `transaction` as the current transaction of every port: the ports write in it
   * (audit rows staged on it, src/ports/staged-audit.ts, for whoever ends it to write), a mutating
   * handler runs in a savepoint. `snapshot` as for {@link withinOpen}.
   */
  within<T>(transaction: OpenTransaction, work: () => Promise<T>, snapshot?: WalletSnapshot): Promise<T>;
  /** The transaction of {@link within}, if that is where the caller runs. */
  transaction(): OpenTransaction | undefined;
  /**
   * Runs `work` with `sql`, a free read's connection as its tenant (src/db/tenant-read.ts), as the
   * current connection of the ports that speak SQL.
   */
  withinSql<T>(sql: Sql, work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` inside `open` as the current connection of every port. The ports write nothing there:
   * the guard chain's settle returns its writes (`returnWrites`) and the runner writes them. `snapshot`,
   * read with the fence in the transaction's first round trip, is what the next wallet read of its
   * organization answers (billing's check), instead of a round trip of its own.
   */
  withinOpen<T>(open: OpenTransaction, work: () => Promise<T>, snapshot?: WalletSnapshot): Promise<T>;
  /** The open transaction of {@link withinOpen}, if that is where the caller runs. */
  open(): OpenTransaction | undefined;
  /** The snapshot given to {@link within} or {@link withinOpen} for `organizationId`, once. */
  takeSnapshot(organizationId: string): WalletSnapshot | undefined;
}

/** A transaction we drive on one pooled connection, without knex: its port and what waits for COMMIT. */
export interface OpenTransaction {
  readonly sql: TransactionSql;
  /** Runs `fn` once the transaction committed; never after a rollback. */
  afterCommit(fn: () => void): void;
}

/** Why a port refuses to write inside an {@link OpenTransaction}. */
export const OPEN_TRANSACTION_WRITE =
  "The mutating invoke's transaction writes the chain's charge and records itself: execute with returnWrites.";

interface Scope {
  readonly sql: Sql;
  /** Where the ports write ({@link SqlExecutor.within}). */
  readonly transaction?: OpenTransaction;
  /** Where the ports write nothing ({@link SqlExecutor.withinOpen}). */
  readonly open?: OpenTransaction;
  /** A wallet snapshot read earlier in the same transaction, handed out once. */
  primed?: WalletSnapshot | undefined;
}

/** Creates a {@link SqlExecutor} over the pool `knex`. */
export function createSqlExecutor(knex: Knex): SqlExecutor {
  const storage = new AsyncLocalStorage<Scope>();
  const pool = sqlDatabaseOfKnex(knex);
  const within = <T>(transaction: OpenTransaction, work: () => Promise<T>, snapshot?: WalletSnapshot) =>
    storage.run({ sql: transaction.sql, transaction, primed: snapshot }, work);
  return {
    knex,
    sql: () => storage.getStore()?.sql ?? pool,
    async transact(work) {
      const committed: Array<() => void> = [];
      const value = await transactionOnPool(knex, async ({ sql, committing }) => {
        const transaction: OpenTransaction = { sql, afterCommit: (fn) => committed.push(fn) };
        const result = await within(transaction, () => work(sql));
        await insertAuditRows(committing, takeStagedAuditRows(transaction));
        return result;
      });
      for (const fn of committed) fn();
      return value;
    },
    within,
    transaction: () => storage.getStore()?.transaction,
    withinSql: (sql, work) => storage.run({ sql }, work),
    withinOpen: (open, work, snapshot) => storage.run({ sql: open.sql, open, primed: snapshot }, work),
    open: () => storage.getStore()?.open,
    takeSnapshot(organizationId) {
      const scope = storage.getStore();
      const primed = scope?.primed;
      if (scope === undefined || primed?.organization_id !== organizationId) return undefined;
      scope.primed = undefined;
      return primed;
    },
  };
}
