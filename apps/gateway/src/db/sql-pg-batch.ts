import type { SqlResult } from '@agw/capabilities';
import pg from 'pg';

/** A statement sent ahead of another in the same batch; its rows are not returned. */
export interface LeadingStatement {
  readonly text: string;
  readonly values?: readonly unknown[];
}

type PgConnection = {
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements: Record<string, string | undefined>;
  parse(query: { text: string; name?: string; types?: number[] }): void;
  bind(config: { portal?: string; statement?: string; values?: unknown[]; valueMapper?: unknown }): void;
  describe(message: { type: 'P' | 'S'; name?: string }): void;
  execute(config: { portal?: string; rows?: number }): void;
};

// `pg`'s own mapping of JS values to parameters (Buffer, Date, arrays, JSON), as its Query uses it.
const prepareValue = (pg as unknown as { utils: { prepareValue: unknown } }).utils.prepareValue;
const basePrepare = (pg.Query.prototype as unknown as { prepare(connection: PgConnection): void }).prepare;
const baseGetRows = (
  pg.Query.prototype as unknown as { _getRows(connection: PgConnection, rows?: number): void }
)._getRows;

/**
 * A `pg` query whose Parse/Bind/Describe/Execute go out after those of `leading` statements, in the same
 * write and before the same Sync: one round trip for all of them. PostgreSQL runs them in order; the
 * first error skips the rest up to the Sync. Outside a transaction block everything between two Syncs
 * is one implicit transaction, committed at the Sync; inside one they are ordinary statements of it.
 * The results are the leading statements' and then the query's: the caller keeps the last. Leading
 * statements are parsed unnamed each time (a few bytes; `pg`'s per-connection cache of named
 * statements tracks one name per query).
 */
class BatchedQuery extends pg.Query {
  readonly #leading: readonly LeadingStatement[];
  #trailing: readonly LeadingStatement[];

  constructor(
    leading: readonly LeadingStatement[],
    config: pg.QueryConfig,
    callback: (error: Error | null, results: unknown) => void,
    trailing: readonly LeadingStatement[] = [],
  ) {
    super({ ...config, queryMode: 'extended' } as pg.QueryConfig, undefined, callback as never);
    this.#leading = leading;
    this.#trailing = trailing;
  }

  // `pg` ends the query's messages here with Execute and Sync: trailing statements (e.g. a COMMIT) go
  // between the two, once. An error in the query skips them, as PostgreSQL skips everything up to Sync.
  _getRows(connection: PgConnection & { sync(): void }, rows?: number): void {
    const trailing = this.#trailing;
    if (trailing.length === 0 || rows) {
      baseGetRows.call(this, connection, rows);
      return;
    }
    this.#trailing = [];
    connection.execute({ portal: (this as unknown as { portal?: string }).portal ?? '', rows: 0 });
    for (const statement of trailing) send(connection, statement);
    connection.sync();
  }

  prepare(connection: PgConnection): void {
    // A named query not yet prepared on this connection is parsed first: `pg` marks a name as parsed on
    // the first ParseComplete of the batch, so that one must be the query's own (a failed Parse then
    // leaves no false mark, and its error skips the leading statements too). An unnamed query is parsed
    // after them: the unnamed statement slot holds one statement at a time.
    const { name, text } = this as unknown as { name?: string; text: string };
    if (name && connection.parsedStatements[name] === undefined) {
      if (connection.submittedNamedStatements[name] === undefined) {
        connection.parse({ text, name, types: (this as unknown as { types?: number[] }).types ?? [] });
        connection.submittedNamedStatements[name] = text;
      }
    }
    for (const statement of this.#leading) send(connection, statement);
    basePrepare.call(this, connection);
  }
}

/** Parse, Bind, Describe and Execute of one unnamed statement (no Sync). */
function send(connection: PgConnection, statement: LeadingStatement): void {
  connection.parse({ text: statement.text, name: '', types: [] });
  connection.bind({
    portal: '',
    statement: '',
    values: [...(statement.values ?? [])],
    valueMapper: prepareValue,
  });
  connection.describe({ type: 'P', name: '' });
  connection.execute({ portal: '', rows: 0 });
}

/**
 * Runs `text` on `client` after `leading` and before `trailing`, in one round trip; answers `text`'s
 * result. A failing statement skips the ones after it (and rejects).
 */
export function queryAfter<Row>(
  client: Pick<pg.ClientBase, 'query'>,
  leading: readonly LeadingStatement[],
  text: string,
  params: readonly unknown[] = [],
  options: { name?: string } = {},
  trailing: readonly LeadingStatement[] = [],
): Promise<SqlResult<Row>> {
  const config: pg.QueryConfig = { text, values: params as unknown[] };
  if (options.name !== undefined) config.name = options.name;
  return new Promise((resolve, reject) => {
    const query = new BatchedQuery(
      leading,
      config,
      (error, results) => {
        if (error) return reject(error);
        const all = Array.isArray(results) ? (results as pg.QueryResult[]) : [results as pg.QueryResult];
        const own = all[all.length - 1 - trailing.length] as pg.QueryResult;
        resolve({ rows: own.rows as Row[], rowCount: own.rowCount ?? own.rows.length });
      },
      trailing,
    );
    client.query(query as unknown as pg.QueryConfig);
  });
}
