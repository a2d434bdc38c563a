import type { Sql, SqlDatabase, SqlResult } from '@agw/capabilities';
import type pg from 'pg';

/** Anything `pg` runs a query config on: a Pool or one connection (pooled, or a knex transaction's). */
type PgQueryable = Pick<pg.ClientBase, 'query'>;

/**
 * The SQL port on `pg`: `$n` parameters go to the server as they are (extended protocol, no string
 * building); a `name` makes it a named prepared statement, parsed and planned once per connection —
 * unless `named` is false (DATABASE_PREPARED_STATEMENTS=false, for a pooler that hands each transaction
 * another server connection, where a name prepared on one is unknown on the next).
 * `pg`'s default types already match the port (bytea → Buffer, numeric/int8 → string, timestamptz → Date).
 */
export function pgSql(queryable: PgQueryable, named = true): Sql {
  return {
    async query<Row>(text: string, params: readonly unknown[] = [], options: { name?: string } = {}) {
      const config: pg.QueryConfig = { text, values: params as unknown[] };
      if (named && options.name !== undefined) config.name = options.name;
      const result = await queryable.query(config);
      return {
        rows: result.rows as Row[],
        rowCount: result.rowCount ?? result.rows.length,
      } satisfies SqlResult<Row>;
    },
  };
}

/**
 * A {@link SqlDatabase} over a `pg` Pool: `query` on any pooled connection, `transaction` on one
 * connection between BEGIN and COMMIT (ROLLBACK when `fn` throws; a connection whose ROLLBACK failed is
 * destroyed, not returned to the pool).
 */
export function createPgSqlDatabase(pool: pg.Pool): SqlDatabase {
  return {
    ...pgSql(pool),
    async transaction(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('begin');
        try {
          const value = await fn(pgSql(client));
          await client.query('commit');
          return value;
        } catch (error) {
          await client.query('rollback').catch((rollbackError: Error) => {
            broken = rollbackError;
          });
          throw error;
        }
      } finally {
        client.release(broken);
      }
    },
  };
}
