/** One statement's answer: the rows it returned and how many rows it returned or changed. */
export interface SqlResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number;
}

/** Per-statement options. */
export interface SqlQueryOptions {
  /**
   * Prepares the statement once per connection under this name and reuses the plan (on `pg`, and on the
   * gateway's embedded PGlite, keyed there by text). A name must always go with the same text: prefix it
   * with the domain, e.g. `documents.insert`.
   */
  readonly name?: string;
}

/**
 * The SQL port: PostgreSQL text with `$1`-style parameters, run by whoever implements it (the gateway on
 * `pg` or PGlite). This package holds no database driver.
 *
 * Values cross the port the same way on both engines: `bytea` as `Uint8Array` (a `Buffer` on `pg`, which
 * is one), `numeric` and `bigint` as strings, `timestamptz` as `Date`, `jsonb` as parsed JSON. Send a
 * `jsonb` parameter as `JSON.stringify(value)` (`pg` would send a JS array as a PostgreSQL array).
 */
export interface Sql {
  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
    options?: SqlQueryOptions,
  ): Promise<SqlResult<Row>>;
}

/** A {@link Sql} that can also open a transaction: `fn`'s statements commit together or not at all. */
export interface SqlDatabase extends Sql {
  transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
}

/** A named statement a domain keeps beside its handlers (see {@link SqlQueryOptions.name}). */
export interface SqlStatement {
  readonly name: string;
  readonly text: string;
}

/** Runs a named statement: `query(statement.text, params, { name: statement.name })`. */
export function runStatement<Row>(
  sql: Sql,
  statement: SqlStatement,
  params: readonly unknown[],
): Promise<SqlResult<Row>> {
  return sql.query<Row>(statement.text, params, { name: statement.name });
}
