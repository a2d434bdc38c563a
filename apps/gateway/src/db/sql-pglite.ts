import type { Sql, SqlDatabase, SqlQueryOptions, SqlResult } from '@agw/capabilities';
import type { PGlite, Results, Transaction } from '@electric-sql/pglite';
import { PGliteThread } from './pglite-thread.js';

// PGlite answers int8 as a JS bigint, `pg` as a string: the port promises a string on both.
const INT8_OID = 20;
const PARSERS = { [INT8_OID]: (value: string) => value };

/**
 * The SQL port on PGlite (on its thread, in process, or one of its transactions): its own `query`, `$n`
 * parameters, no knex in between. On the thread a named statement is prepared once and its plan reused
 * ({@link PGliteThread.query}); PGlite's own API has no prepared statements, so elsewhere `name` is
 * ignored.
 *
 * PGlite is one session: statements from anywhere interleave on it. While knex (knex-pglite) may hold a
 * transaction on the same instance, run handler SQL through that transaction's connection
 * (`db/sql-knex.ts`), never on the instance directly.
 */
export function pgliteSql(db: PGlite | Transaction | PGliteThread): Sql {
  return {
    async query<Row>(text: string, params: readonly unknown[] = [], options?: SqlQueryOptions) {
      if (db instanceof PGliteThread) {
        return answerOf(await db.query<Row>(text, params, { parsers: PARSERS, name: options?.name }));
      }
      return answerOf(await db.query<Row>(text, params as unknown[], { parsers: PARSERS }));
    },
  };
}

/**
 * `leading`, `text` and `trailing` (skipped when `text` fails) in one message to the database's thread
 * ({@link PGliteThread.queryBetween}); answers `text`'s result as the port does.
 */
export async function queryBetweenOnThread<Row>(
  thread: PGliteThread,
  leading: readonly string[],
  text: string,
  params: readonly unknown[] = [],
  trailing: readonly string[] = [],
  name?: string,
): Promise<SqlResult<Row>> {
  const options = { parsers: PARSERS, name };
  return answerOf(
    await thread.queryBetween<Row>(leading.join('; '), text, params, options, trailing.join('; ')),
  );
}

function answerOf<Row>(result: Results<Row>): SqlResult<Row> {
  return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
}

/** A {@link SqlDatabase} over a PGlite instance of its own (PGlite's `transaction` serializes them). */
export function createPgliteSqlDatabase(db: PGlite): SqlDatabase {
  return {
    ...pgliteSql(db),
    transaction: (fn) => db.transaction((tx) => fn(pgliteSql(tx))),
  };
}
