import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { capabilityExtensions } from '@agw/capabilities';
import type { Results } from '@electric-sql/pglite';
import { pgliteExtensionModules } from './extensions.js';

// int8 answered as its text, as `pg` does (src/db/sql-pglite.ts asks for it by this parser).
const INT8_OID = 20;

/**
 * The worker: one PGlite instance, statements run in the order they arrive (PGlite queues them), each
 * answered with its id. Kept as a CommonJS source evaluated by the worker, so one file serves the
 * built gateway (ESM and CJS) and its TypeScript sources under the test runner alike; the modules it
 * loads are resolved by the caller and passed as absolute paths.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite, parse, protocol } = require(workerData.modules.pglite);
const extensions = {};
for (const { exportName, path } of workerData.modules.extensions) extensions[exportName] = require(path)[exportName];
const int8AsText = { parsers: { ${INT8_OID}: (value) => value } };
const db = new PGlite(workerData.dataDir, { startParams: workerData.startParams, extensions });

// Only primitive fields cross the thread boundary (an Error's own fields are lost in a structured clone).
function failure(error) {
  const fields = { name: error?.name ?? 'Error', message: String(error?.message ?? error) };
  for (const key of Object.keys(error ?? {})) {
    const value = error[key];
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return fields;
}
function answer(id, run) {
  run.then(
    (result) => {
      try {
        parentPort.postMessage({ id, result });
      } catch (error) {
        parentPort.postMessage({ id, error: failure(error) });
      }
    },
    (error) => parentPort.postMessage({ id, error: failure(error) }),
  );
}
// A named statement (the SQL port's name) is parsed and described once per text, then each run is one
// call into the database (bind, describe, execute, sync) on its cached plan, as on pg. PGlite's query
// makes six calls (parse, describe, bind, describe, execute, sync) and parses and plans every time:
// for the fence and wallet snapshot that was about three quarters of the statement's cost. Keyed by
// text, so a name reused for another text cannot run the wrong statement; only named statements, so
// the cache is bounded by the code's statements. The one session is this process's own: nothing else
// deallocates them.
const prepared = new Map();
function queryNamed(text, params, options) {
  const { serialize } = protocol;
  return db._runExclusiveQuery(async () => {
    let statement = prepared.get(text);
    if (statement === undefined) {
      const name = 'agw_' + (prepared.size + 1);
      const { messages } = await db.execProtocol(
        Buffer.concat([serialize.parse({ name, text, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      );
      statement = { name, types: parse.parseDescribeStatementResults(messages) };
      prepared.set(text, statement);
    }
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[statement.types[index]];
      return serializer ? serializer(value) : value.toString();
    });
    const { messages } = await db.execProtocol(
      Buffer.concat([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    return parse.parseResults(messages, db.parsers, options)[0];
  });
}
function query(text, params, options, named) {
  return named ? queryNamed(text, params, options) : db.query(text, params, options);
}
// Statements without parameters before and after one query, back to back on this thread (one message
// each way): the trailing ones only once the query succeeded.
async function queryBetween(leading, text, params, options, named, trailing) {
  if (leading) await db.exec(leading);
  const result = await query(text, params, options, named);
  if (trailing) await db.exec(trailing);
  return result;
}
parentPort.on('message', ({ id, method, text, params, int8, named, leading, trailing }) => {
  const options = int8 ? int8AsText : undefined;
  if (method === 'query') answer(id, query(text, params, options, named));
  else if (method === 'queryBetween') answer(id, queryBetween(leading, text, params, options, named, trailing));
  else if (method === 'exec') answer(id, db.exec(text));
  else if (method === 'close') answer(id, db.close());
});
answer(0, db.waitReady);
`;

/** Whether `options` ask for int8 as text, the only parser that can be honoured (a function cannot cross). */
function int8Asked(options: PGliteThreadQueryOptions | undefined): boolean {
  const parsers = Object.keys(options?.parsers ?? {});
  if (parsers.some((oid) => Number(oid) !== INT8_OID)) {
    throw new Error('PGliteThread: only the int8-as-text parser is supported');
  }
  return parsers.length > 0;
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** What {@link PGliteThread.query} takes of PGlite's query options. */
export interface PGliteThreadQueryOptions {
  /** Only `{ 20: (value) => value }` (int8 as text): a function cannot cross to the worker. */
  readonly parsers?: Readonly<Record<number, unknown>>;
  /** The statement's name (the SQL port's): prepared once, its plan reused (keyed by text, not name). */
  readonly name?: string | undefined;
}

/**
 * PGlite on a worker thread, with the part of PGlite's interface the gateway uses (`waitReady`, `query`,
 * `exec`, `close`; knex-pglite takes it as its connection).
 *
 * Why a thread: PGlite executes in WebAssembly on the thread that calls it, so in process every
 * statement's work ran on the gateway's event loop, between the requests. Page views are the busiest
 * route: their batch inserts were about a third of the loop's time, and the loop was the bound of
 * ingestion on two cores (docs/analytics.md, "Fifth round"). On the worker that work runs on the
 * other core, and a statement's answer arrives as a message, so requests queued for the single
 * connection never run in one turn of the loop. A statement costs a message each way (about 40 µs of
 * wall time on these machines when nothing else waits).
 *
 * The worker is referenced only while statements are pending, as the in-process instance held no
 * handle: a process whose work is done exits without closing the database.
 */
export class PGliteThread {
  readonly waitReady: Promise<void>;
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #stopped: Error | undefined;

  /** `extensions`: the PostgreSQL extensions to load (by default every one a domain declares). */
  constructor(dataDir: string, startParams: readonly string[], extensions = capabilityExtensions) {
    const require = createRequire(import.meta.url);
    const modules = {
      pglite: require.resolve('@electric-sql/pglite'),
      extensions: pgliteExtensionModules(extensions),
    };
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { dataDir, startParams: [...startParams], modules },
    });
    this.#worker.on('message', (message: { id: number; result?: unknown; error?: Record<string, unknown> }) =>
      this.#settle(message),
    );
    this.#worker.on('error', (error) => this.#stop(error));
    this.#worker.on('exit', (code) =>
      this.#stop(new Error(`The embedded database stopped (exit code ${code}).`)),
    );
    this.waitReady = new Promise<unknown>((resolve, reject) => this.#expect(0, { resolve, reject })).then(
      () => undefined,
    );
  }

  /** Whether the database was closed (or its thread ended). */
  get closed(): boolean {
    return this.#stopped !== undefined;
  }

  query<Row = Record<string, unknown>>(
    text: string,
    params: readonly unknown[] = [],
    options?: PGliteThreadQueryOptions,
  ): Promise<Results<Row>> {
    return this.#call({
      method: 'query',
      text,
      params,
      int8: int8Asked(options),
      named: options?.name !== undefined,
    }) as Promise<Results<Row>>;
  }

  /**
   * `leading` (statements without parameters, one simple query), then `text`, then `trailing` (skipped
   * when `text` fails), run back to back on the thread: one message each way instead of three. Answers
   * `text`'s result. A transaction's statements hold the single session; sent one by one, the database
   * idles while each answer crosses to the gateway and the next statement crosses back.
   */
  queryBetween<Row = Record<string, unknown>>(
    leading: string,
    text: string,
    params: readonly unknown[] = [],
    options?: PGliteThreadQueryOptions,
    trailing = '',
  ): Promise<Results<Row>> {
    return this.#call({
      method: 'queryBetween',
      leading,
      text,
      params,
      int8: int8Asked(options),
      named: options?.name !== undefined,
      trailing,
    }) as Promise<Results<Row>>;
  }

  exec(text: string): Promise<Results[]> {
    return this.#call({ method: 'exec', text }) as Promise<Results[]>;
  }

  /** Closes the database (PGlite writes what it holds) and ends the thread. */
  async close(): Promise<void> {
    if (this.#stopped !== undefined) return;
    await this.#call({ method: 'close' });
    this.#stop(new Error('The embedded database is closed.'));
    await this.#worker.terminate();
  }

  #call(message: {
    method: string;
    text?: string;
    params?: readonly unknown[];
    int8?: boolean;
    named?: boolean;
    leading?: string;
    trailing?: string;
  }) {
    if (this.#stopped !== undefined) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    const answered = new Promise((resolve, reject) => this.#expect(id, { resolve, reject }));
    try {
      this.#worker.postMessage({ id, ...message });
    } catch (error) {
      // A parameter that cannot be cloned (a function, a class with private state): refused like a bad value.
      this.#settle({ id, error: { name: 'TypeError', message: (error as Error).message } });
    }
    return answered;
  }

  #expect(id: number, pending: Pending): void {
    if (this.#pending.size === 0) this.#worker.ref();
    this.#pending.set(id, pending);
  }

  #settle({ id, result, error }: { id: number; result?: unknown; error?: Record<string, unknown> }): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (error === undefined) pending.resolve(result);
    else pending.reject(Object.assign(new Error(String(error.message)), error));
  }

  #stop(reason: Error): void {
    this.#stopped ??= reason;
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
    this.#worker.unref();
  }
}
