import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

/**
 * Which connection the knex ports use: the transaction of the current invoke when there is one, the
 * pool otherwise. The guard chain is built once with fixed ports, so the transaction travels through
 * AsyncLocalStorage rather than through the ports' arguments.
 */
export interface KnexExecutor {
  /** The current transaction, or the pool. */
  current(): Knex;
  /** True inside {@link within}: writes then commit (or roll back) with the invoke's transaction. */
  inTransaction(): boolean;
  /** Runs `work` with `trx` as the current connection of every port. */
  within<T>(trx: Knex.Transaction, work: () => Promise<T>): Promise<T>;
  /**
   * Opens a transaction whose body is `work` and runs the work deferred with {@link beforeCommit} after
   * it, as the last statements before COMMIT.
   */
  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  /**
   * Defers `work` to the end of the current {@link transaction} and answers true; answers false (and
   * does nothing) outside one, so the caller runs it at once. For updates of rows every request of an
   * organization touches (its balance): deferred, their row locks are held for one round trip only.
   */
  beforeCommit(work: () => Promise<void>): boolean;
}

interface Scope {
  readonly trx: Knex.Transaction;
  /** Present only in a scope opened by `transaction()`. */
  readonly deferred?: Array<() => Promise<void>>;
}

/** Creates a {@link KnexExecutor} over the pool `knex`. */
export function createKnexExecutor(knex: Knex): KnexExecutor {
  const storage = new AsyncLocalStorage<Scope>();
  return {
    current: () => storage.getStore()?.trx ?? knex,
    inTransaction: () => storage.getStore() !== undefined,
    within(trx, work) {
      // The same transaction again keeps its deferred list; a savepoint gets none (what it defers
      // could outlive its rollback), so its callers write at once.
      if (storage.getStore()?.trx === trx) return work();
      return storage.run({ trx }, work);
    },
    transaction(work) {
      return knex.transaction((trx) => {
        const scope: Scope = { trx, deferred: [] };
        return storage.run(scope, async () => {
          const result = await work(trx);
          for (const deferred of scope.deferred ?? []) await deferred();
          return result;
        });
      });
    },
    beforeCommit(work) {
      const deferred = storage.getStore()?.deferred;
      if (deferred === undefined) return false;
      deferred.push(work);
      return true;
    },
  };
}
