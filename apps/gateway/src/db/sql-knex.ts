import type { Sql } from '@agw/capabilities';
import type { PGlite } from '@electric-sql/pglite';
import type { Knex } from 'knex';
import type pg from 'pg';
import { pgSql } from './sql-pg.js';
import { pgliteSql } from './sql-pglite.js';

/**
 * The SQL port on the connection of a knex transaction, so a handler's statements run in the very
 * transaction that holds the chain's charge and audit rows (knex's BEGIN … COMMIT), with no query
 * builder and no `?`-binding rewriting in between.
 *
 * Why the transaction's own connection: a knex transaction holds one connection for its whole life;
 * its client (`makeTxClient` in knex/lib/execution/transaction.js) overrides `acquireConnection()` to
 * resolve exactly that connection and `releaseConnection()` to do nothing. On PostgreSQL the connection
 * is a `pg` Client, on knex-pglite it is the PGlite instance itself (knex-pglite's pool of one lends it
 * to one knex user at a time, and its BEGIN is a plain query on it). Rewriting `$n` into knex `?`
 * bindings instead would have to parse SQL (`?` in strings and in jsonb operators such as `?|`).
 * Savepoints are transactions on the same connection, so the port works inside them too.
 */
export function sqlOfKnexTransaction(trx: Knex.Transaction): Sql {
  let bound: Promise<Sql> | undefined;
  const bind = async (): Promise<Sql> => {
    const connection = (await trx.client.acquireConnection()) as pg.ClientBase | PGlite;
    return 'waitReady' in connection ? pgliteSql(connection) : pgSql(connection);
  };
  return {
    async query(text, params, options) {
      // knex refuses statements on a finished transaction; so does the port (a handler kept `ctx.sql`).
      if (trx.isCompleted()) throw new Error('The transaction of this SQL port has ended.');
      bound ??= bind();
      return (await bound).query(text, params, options);
    },
  };
}
