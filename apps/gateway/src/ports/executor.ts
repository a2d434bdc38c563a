import { AsyncLocalStorage } from 'node:async_hooks';
import type { Sql } from '@agw/capabilities';
import type { WalletSnapshot } from '@agw/guard';
import type { Knex } from 'knex';
import { sqlDatabaseOfKnex, sqlOfKnexTransaction, type TransactionSql } from '../db/sql-knex.js';
import { insertAuditRows } from './audit-rows.js';
import { stagedRowsAnswered, takeStagedAuditRows } from './staged-audit.js';

/**
 * Which connection the ports use: the transaction of the current invoke when there is one, the pool
 * otherwise. The guard chain is built once with fixed ports, so the transaction travels through
 * AsyncLocalStorage rather than through the ports' arguments.
 */
export interface KnexExecutor {
  /** The current knex transaction, or the pool. Throws inside {@link withinSql} (no knex transaction). */
  current(): Knex;
  /** The current knex transaction; undefined outside one and inside {@link withinSql}. */
  transaction(): Knex.Transaction | undefined;
  /** The SQL port of the current transaction, or of the pool (one statement per pooled connection). */
  sql(): Sql;
  /** True inside {@link within} or {@link withinSql}: writes then commit (or roll back) with it. */
  inTransaction(): boolean;
  /**
   * Runs `work` with `trx` as the current connection of every port. Audit rows the ports staged on
   * `trx` (src/ports/staged-audit.ts) are inserted when `work` resolves, unless an idempotent answer
   * writes them; when `work` throws the transaction rolls back and they are dropped with it.
   */
  within<T>(trx: Knex.Transaction, work: () => Promise<T>): Promise<T>;
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
  /** The snapshot given to {@link withinOpen} for `organizationId`, once; undefined otherwise. */
  takeSnapshot(organizationId: string): WalletSnapshot | undefined;
}

/**
 * A transaction the mutating invoke drives itself on one pooled connection, without knex
 * (src/idempotency/run-sql.ts): its BEGIN goes out with the fence, its COMMIT after the answer.
 */
export interface OpenTransaction {
  readonly sql: TransactionSql;
  /** Runs `fn` once the transaction committed; never after a rollback. */
  afterCommit(fn: () => void): void;
}

/** Why a port refuses to write inside an {@link OpenTransaction}. */
export const OPEN_TRANSACTION_WRITE =
  "The mutating invoke's transaction writes the chain's charge and records itself: execute with returnWrites.";

interface Scope {
  readonly trx: Knex.Transaction | undefined;
  readonly sql: Sql;
  readonly open?: OpenTransaction;
  /** A wallet snapshot read earlier in the same transaction, handed out once. */
  primed?: WalletSnapshot | undefined;
}

/** Creates a {@link KnexExecutor} over the pool `knex`. */
export function createKnexExecutor(knex: Knex): KnexExecutor {
  const storage = new AsyncLocalStorage<Scope>();
  const pool = sqlDatabaseOfKnex(knex);
  return {
    current() {
      const scope = storage.getStore();
      if (scope === undefined) return knex;
      if (scope.trx === undefined) throw new Error('This transaction has no knex connection.');
      return scope.trx;
    },
    transaction: () => storage.getStore()?.trx,
    sql: () => storage.getStore()?.sql ?? pool,
    inTransaction: () => storage.getStore() !== undefined,
    within(trx, work) {
      const sql = sqlOfKnexTransaction(trx);
      return storage.run({ trx, sql }, async () => {
        const value = await work();
        if (!stagedRowsAnswered(trx)) await insertAuditRows(sql, takeStagedAuditRows(trx));
        return value;
      });
    },
    withinSql: (sql, work) => storage.run({ trx: undefined, sql }, work),
    withinOpen: (open, work, snapshot) =>
      storage.run({ trx: undefined, sql: open.sql, open, primed: snapshot }, work),
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
