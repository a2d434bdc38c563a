// What one HTTP request sends to the database: a request carrying the tag header runs with its own
// counter (the tag follows its async work), so the gateway's background work (roll-up, sealer, outbox,
// job poller) is not counted. Import this module before the gateway starts: it patches the HTTP
// server's `emit` and `pg`'s `Client.query` once for the whole test file.
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import pg from 'pg';

/** What a tagged request sent: knex `query` events and `pg` client queries (one batch is one query). */
export interface RequestStatements {
  readonly knex: string[];
  readonly roundTrips: string[];
}

/** The header that ties a request to its counter. */
export const STATEMENTS_TAG = 'x-test-count-statements';

const counted = new AsyncLocalStorage<RequestStatements>();
const counters = new Map<string, RequestStatements>();

const emit = http.Server.prototype.emit as (this: http.Server, event: string, ...args: unknown[]) => boolean;
http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
  const request = args[0] as http.IncomingMessage | undefined;
  if (event === 'request' && request?.headers[STATEMENTS_TAG] !== undefined) {
    const counter = counters.get(String(request.headers[STATEMENTS_TAG]));
    if (counter) return counted.run(counter, () => emit.call(this, event, ...args));
  }
  return emit.call(this, event, ...args);
} as typeof http.Server.prototype.emit;

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const config = args[0] as string | { text?: string } | undefined;
  const text = typeof config === 'string' ? config : (config?.text ?? '');
  counted.getStore()?.roundTrips.push(text.replace(/\s+/g, ' ').slice(0, 60));
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

/** The counter of the request being handled, if it carries the tag (for knex's `query` event). */
export function currentStatements(): RequestStatements | undefined {
  return counted.getStore();
}

/**
 * Sends a request with a fresh tag and answers what it sent to the database besides its response.
 */
export async function sendCounted(
  url: string,
  init: RequestInit & { headers: Record<string, string> },
): Promise<{ response: Response; body: unknown; statements: RequestStatements }> {
  const tag = `request-${counters.size}-${Math.random().toString(36).slice(2)}`;
  const statements: RequestStatements = { knex: [], roundTrips: [] };
  counters.set(tag, statements);
  try {
    const response = await fetch(url, { ...init, headers: { ...init.headers, [STATEMENTS_TAG]: tag } });
    return { response, body: await response.json(), statements };
  } finally {
    counters.delete(tag);
  }
}
