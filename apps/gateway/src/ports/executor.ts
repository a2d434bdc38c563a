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
}

/** Creates a {@link KnexExecutor} over the pool `knex`. */
export function createKnexExecutor(knex: Knex): KnexExecutor {
  const storage = new AsyncLocalStorage<Knex.Transaction>();
  return {
    current: () => storage.getStore() ?? knex,
    inTransaction: () => storage.getStore() !== undefined,
    within: (trx, work) => storage.run(trx, work),
  };
}
