import type { Knex } from 'knex';
import { sqlPoolOf, type TransactionSql } from './pool.js';

/** What the gateway knows of a knex transaction it opened. */
interface Opened {
  /** The SQL port on the transaction's own connection. */
  readonly sql: TransactionSql;
  /** The knex instance the transaction came from (it names the database). */
  readonly knex: Knex;
  /** Resolves true once the transaction committed, false once it rolled back. */
  readonly ended: Promise<boolean>;
}

const opened = new WeakMap<Knex.Transaction, Opened>();

/**
 * Runs `fn` in a knex transaction on a connection lent by the gateway's pool (knex's documented
 * `connection` option of `transaction()`), so the SQL port can speak on that very connection
 * ({@link sqlOfKnexTransaction}) without asking knex for it, and the transaction's end is known
 * ({@link knexTransactionEnded}). For the query-builder paths (admin routes, the access routes'
 * idempotent runs, the outbox, the audit sealer); the request path's SQL goes through the pool alone.
 */
export async function knexTransaction<T>(
  knex: Knex,
  fn: (trx: Knex.Transaction) => Promise<T>,
  config: Omit<Knex.TransactionConfig, 'connection'> = {},
): Promise<T> {
  let end!: (committed: boolean) => void;
  const ended = new Promise<boolean>((resolve) => {
    end = resolve;
  });
  try {
    const value = await sqlPoolOf(knex).lend(async (raw, sql, dispose) => {
      try {
        return await knex.transaction(
          (trx) => {
            opened.set(trx, { sql, knex, ended });
            return fn(trx);
          },
          { ...config, connection: raw },
        );
      } catch (error) {
        // knex rolled back, or failed to: a ROLLBACK outside a transaction only warns, so one more
        // tells whether the connection can be lent again (the failure path only).
        await sql.exec('rollback').catch(dispose);
        throw error;
      }
    });
    end(true);
    return value;
  } catch (error) {
    end(false);
    throw error;
  }
}

/** The SQL port on `trx`'s connection; `trx` must come from {@link knexTransaction}. */
export function sqlOfKnexTransaction(trx: Knex.Transaction): TransactionSql {
  return openedBy(trx).sql;
}

/**
 * The knex instance `trx` came from and whether it committed (resolves at its end); `trx` must come
 * from {@link knexTransaction}.
 */
export function knexTransactionEnded(trx: Knex.Transaction): { knex: Knex; committed: Promise<boolean> } {
  const { knex, ended } = openedBy(trx);
  return { knex, committed: ended };
}

function openedBy(trx: Knex.Transaction): Opened {
  const found = opened.get(trx);
  if (found === undefined) {
    throw new Error('This knex transaction was not opened by knexTransaction (src/db/knex-transaction.ts).');
  }
  return found;
}
