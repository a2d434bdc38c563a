import type { SqlResult } from '@agw/capabilities';
import pg from 'pg';

/** A statement sent ahead of another in the same batch; its rows are not returned. A `name` prepares it once per connection. */
export interface LeadingStatement {
  readonly text: string;
  readonly values?: readonly unknown[];
  readonly name?: string;
}

// `pg`'s own mapping of JS values to parameters (Buffer, Date, arrays, JSON), exported as `pg.utils`.
const prepareValue = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils
  .prepareValue;

/** The public methods of `pg.Result` a submittable fills (as pg-cursor does); @types/pg omits them. */
interface ResultBuilder extends pg.QueryResult {
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): Record<string, unknown>;
  addRow(row: Record<string, unknown>): void;
  addCommandComplete(message: unknown): void;
}

const newResult = () => new pg.Result('', undefined as never) as unknown as ResultBuilder;

// The named statements this module prepared on each connection: 'parsed' once a batch that parsed one
// ended without error; 'unknown' when it failed (the Parse may or may not have succeeded), so the next
// batch sends a Close first (closing a statement that does not exist is no error). Kept apart from
// `pg`'s own cache of names under a suffix of their own, so the two never prepare one name twice.
const prepared = new WeakMap<pg.Connection, Map<string, 'parsed' | 'unknown'>>();
const BATCH_SUFFIX = '/batch';

/**
 * Several statements in one round trip on `pg`, through its public Submittable interface
 * (`client.query(submittable)`, the extension point of pg-cursor and pg-query-stream): Parse, Bind,
 * Describe and Execute of each statement are written together, then one Sync. PostgreSQL runs them in
 * order; the first error skips the rest up to the Sync. Outside a transaction block everything between
 * two Syncs is one implicit transaction, committed at the Sync; inside one they are ordinary statements
 * of it. `pg`'s `pipeline` client option would also send several queries at once, but each with a Sync
 * of its own: a tenant's `set_config(…, true)` would end before the statement it is for.
 */
class BatchQuery implements pg.Submittable {
  /** The statement whose result is answered (what a log or a test's counter shows of the batch). */
  readonly text: string;
  readonly #statements: readonly { text: string; values: readonly unknown[]; name?: string }[];
  readonly #settle: (error: Error | null, results: ResultBuilder[]) => void;
  readonly #results: ResultBuilder[] = [];
  #current: ResultBuilder | undefined;
  #rowError: Error | undefined;
  // The names this batch parses (the tenant's statement and the query's may both be new), with their map.
  #parsed: { names: Map<string, 'parsed' | 'unknown'>; parsed: string[] } | undefined;

  constructor(
    statements: readonly { text: string; values: readonly unknown[]; name?: string }[],
    own: number,
    settle: (error: Error | null, results: ResultBuilder[]) => void,
  ) {
    this.text = statements[own]?.text ?? '';
    this.#statements = statements;
    this.#settle = settle;
  }

  submit(connection: pg.Connection): void {
    // Each message is a write of its own on the socket, a system call each (`pg` 8 ignores the `more`
    // flag @types/pg still asks for): corked, the batch leaves in one, as `pg`'s own Query does.
    // Uncorked even if a serializer throws.
    connection.stream.cork();
    try {
      this.#write(connection);
    } finally {
      connection.stream.uncork();
    }
  }

  #write(connection: pg.Connection): void {
    let names = prepared.get(connection);
    if (names === undefined) {
      names = new Map();
      prepared.set(connection, names);
    }
    for (const statement of this.#statements) {
      const name = statement.name === undefined ? '' : `${statement.name}${BATCH_SUFFIX}`;
      const state = name === '' ? undefined : names.get(name);
      if (name === '' || state !== 'parsed') {
        if (state === 'unknown') connection.close({ type: 'S', name }, true);
        connection.parse({ text: statement.text, name, types: [] }, true);
        if (name !== '') {
          names.set(name, 'unknown');
          this.#parsed ??= { names, parsed: [] };
          this.#parsed.parsed.push(name);
        }
      }
      connection.bind(
        {
          portal: '',
          statement: name,
          values: statement.values as never,
          valueMapper: prepareValue as never,
        },
        true,
      );
      connection.describe({ type: 'P', name: '' }, true);
      connection.execute({ portal: '' }, true); // every row
    }
    connection.sync();
  }

  handleRowDescription(message: { fields: unknown[] }): void {
    this.#current = newResult();
    this.#current.addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    if (this.#rowError !== undefined || this.#current === undefined) return;
    try {
      this.#current.addRow(this.#current.parseRow(message.fields));
    } catch (error) {
      this.#rowError = error as Error;
    }
  }

  handleCommandComplete(message: unknown): void {
    const result = this.#current ?? newResult();
    result.addCommandComplete(message);
    this.#results.push(result);
    this.#current = undefined;
  }

  handleEmptyQuery(): void {
    this.#results.push(newResult());
  }

  handleError(error: Error): void {
    this.#settle(error, []);
  }

  handleReadyForQuery(): void {
    if (this.#parsed !== undefined)
      for (const name of this.#parsed.parsed) this.#parsed.names.set(name, 'parsed');
    this.#settle(this.#rowError ?? null, this.#results);
  }
}

/**
 * Runs `text` on `client` after `leading` and before `trailing`, in one round trip and one implicit
 * transaction outside a transaction block; answers `text`'s result. A failing statement skips the ones
 * after it (and rejects). A `name` prepares `text` once per connection.
 */
export function queryAfter<Row>(
  client: Pick<pg.ClientBase, 'query'>,
  leading: readonly LeadingStatement[],
  text: string,
  params: readonly unknown[] = [],
  options: { name?: string } = {},
  trailing: readonly LeadingStatement[] = [],
): Promise<SqlResult<Row>> {
  const batched = (statement: LeadingStatement) => ({
    text: statement.text,
    values: statement.values ?? [],
    ...(statement.name === undefined ? {} : { name: statement.name }),
  });
  const statements = [
    ...leading.map(batched),
    batched({ text, values: params, ...(options.name === undefined ? {} : { name: options.name }) }),
    ...trailing.map(batched),
  ];
  return new Promise((resolve, reject) => {
    client.query(
      new BatchQuery(statements, leading.length, (error, results) => {
        if (error) return reject(error);
        const own = results[leading.length];
        if (own === undefined) return reject(new Error('the batch answered fewer results than statements'));
        resolve({ rows: own.rows as Row[], rowCount: own.rowCount ?? own.rows.length });
      }),
    );
  });
}
