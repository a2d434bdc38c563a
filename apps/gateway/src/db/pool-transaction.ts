import type { Sql, SqlQueryOptions } from '@agw/capabilities';
import type { Knex } from 'knex';
import { type BatchStatement, sqlPoolOf, type TransactionSql } from './pool.js';

/** The transaction {@link transactionOnPool} lends. */
export interface PoolTransaction {
  /** The transaction's statements; the first one carries its BEGIN. */
  readonly sql: TransactionSql;
  /**
   * The transaction's last statement: sent with COMMIT behind it in the same round trip (on PGlite one
   * after the other). The COMMIT is skipped when the statement fails, and the transaction rolls back.
   */
  readonly committing: Sql;
}

/**
 * Runs `fn` in a transaction on one connection of knex's pool that we drive ourselves (no knex
 * transaction): its BEGIN goes out with its first statement and its COMMIT with its last
 * (`committing`), or on its own once `fn` resolves; a throw rolls it back. A connection whose
 * ROLLBACK failed is destroyed, never lent again; one that `fn` kept (a late statement) refuses to
 * send once it is back in the pool (`SqlPool.connection`). On PGlite the connection is the single
 * session: nothing inside `fn` may ask the pool for another.
 */
export function transactionOnPool<T>(
  knex: Knex,
  fn: (transaction: PoolTransaction) => Promise<T>,
): Promise<T> {
  return sqlPoolOf(knex).connection(async (connection, dispose) => {
    let begun = false;
    let committed = false;
    // Set before the first await: a statement sent meanwhile queues behind the one carrying BEGIN.
    const lead = <Statement extends BatchStatement>(leading: readonly Statement[]) => {
      if (begun) return leading;
      begun = true;
      return ['begin', ...leading];
    };
    const sql: TransactionSql = {
      query: (text, params, options) =>
        begun
          ? connection.query(text, params, options)
          : connection.queryAfter(lead([]), text, params, options),
      exec: (text) => connection.exec([...lead([]), text].join('; ')),
      queryAfter: (leading, text, params, options, trailing) =>
        connection.queryAfter(lead(leading), text, params, options, trailing),
    };
    const committing: Sql = {
      async query<Row>(text: string, params?: readonly unknown[], options?: SqlQueryOptions) {
        const result = await sql.queryAfter<Row>([], text, params, options, ['commit']);
        committed = true;
        return result;
      },
    };
    try {
      const value = await fn({ sql, committing });
      if (begun && !committed) await connection.exec('commit');
      return value;
    } catch (error) {
      if (begun && !committed) await connection.exec('rollback').catch(dispose);
      throw error;
    }
  });
}
