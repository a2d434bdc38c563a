// What one invoke sends to the database, counted per HTTP request: the request is tagged when the server
// receives it and the tag follows its async work, so the gateway's background work (roll-up, sealer,
// outbox) is not counted. On the invoke route nothing goes through knex's query builder or knex's
// transactions (design.md: raw, parameterized SQL on the hot path): knex only lends pooled connections
// to the SQL port, so it emits no `query` event for a paid read, an approval-gated invoke or a
// long-running invoke's acceptance or its poll. On PostgreSQL the round trips (`pg` client queries; one batch is one
// query) are counted too.
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

interface Counter {
  readonly knex: string[];
  readonly roundTrips: string[];
}
const counted = new AsyncLocalStorage<Counter>();
const TAG = 'x-test-count-statements';
const counters = new Map<string, Counter>();

// Installed before the gateway starts: requests carrying the tag run with their own counter.
const emit = http.Server.prototype.emit as (this: http.Server, event: string, ...args: unknown[]) => boolean;
http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
  const request = args[0] as http.IncomingMessage | undefined;
  if (event === 'request' && request?.headers[TAG] !== undefined) {
    const counter = counters.get(String(request.headers[TAG]));
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

const paidRead = demoCapability({ id: 'demo.paid.read', cost_credits: '0.5' }, async (_input, ctx) => {
  const { rows } = await ctx.sql.query<{ one: number }>('select 1 as one');
  return { one: rows[0]?.one };
});
const longRun = demoCapability(
  { id: 'demo.long.run', cost_credits: '0.25', mutating: true, long_running: true },
  async () => ({ done: true }),
);
// Risk high: every run of another door needs a new approval.
const vault = demoCapability(
  {
    id: 'demo.vault.open',
    risk_level: 'high',
    input_schema: { type: 'object', properties: { door: { type: 'string' } }, additionalProperties: false },
  },
  async () => ({ opened: true }),
);
// No job worker: the accepted job stays queued, and nothing polls the queue meanwhile.
const gateway = useGateway({ ...withCapabilities(paidRead, longRun, vault), jobs: { enabled: false } });
let key: string;
let requests = 0;

beforeAll(async () => {
  ({ key } = await approvedInstallation(gateway, '10'));
  gateway.knex.on('query', (data: { sql?: string }) => counted.getStore()?.knex.push(data.sql ?? ''));
});

/** Sends `body` to `path` (GET without one); answers the status, the answer and what its request sent. */
async function send(
  path: string,
  body?: object,
): Promise<{ status: number; outcome: unknown; answer: Record<string, unknown> } & Counter> {
  requests += 1;
  const tag = `request-${requests}`;
  const counter: Counter = { knex: [], roundTrips: [] };
  counters.set(tag, counter);
  const response = await fetch(`${gateway.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', [TAG]: tag },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  counters.delete(tag);
  return { status: response.status, outcome: answer.status, answer, ...counter };
}

const invoke = (body: object) => send('/mcp/invoke', body);
const accept = () =>
  invoke({ id: 'demo.long.run', params: {}, idempotency_key: `statements-${Date.now()}-${requests}` });

describe('the invoke route', () => {
  beforeAll(async () => {
    // The key, installation and kill-switch caches are warm from here on.
    await invoke({ id: 'demo.paid.read', params: {} });
  });

  it('sends no statement through knex for a paid read, an approval, a long-running acceptance and its poll', async () => {
    const read = await invoke({ id: 'demo.paid.read', params: {} });
    expect([read.status, read.outcome]).toEqual([200, 'succeeded']);
    const gated = await invoke({ id: 'demo.vault.open', params: { door: 'knex' } });
    expect([gated.status, gated.outcome]).toEqual([200, 'pending_approval']);
    const accepted = await accept();
    expect([accepted.status, accepted.outcome]).toEqual([200, 'accepted']);
    const polled = await send((accepted.answer.poll as { url: string }).url);
    expect([polled.status, polled.outcome]).toEqual([200, 'accepted']);
    expect({ read: read.knex, gated: gated.knex, accepted: accepted.knex, polled: polled.knex }).toEqual({
      read: [],
      gated: [],
      accepted: [],
      polled: [],
    });
  });

  it.runIf(process.env.DATABASE_URL)(
    'on PostgreSQL, takes six round trips for a paid read, four for a new approval and for an acceptance',
    async () => {
      const read = await invoke({ id: 'demo.paid.read', params: {} });
      const gated = await invoke({ id: 'demo.vault.open', params: { door: 'round-trips' } });
      const accepted = await accept();
      expect([read.outcome, gated.outcome, accepted.outcome]).toEqual([
        'succeeded',
        'pending_approval',
        'accepted',
      ]);
      // The snapshot (with BEGIN); the tenant, the handler's statement, back; the charge; the audit rows
      // with COMMIT.
      expect(read.roundTrips).toHaveLength(6);
      // No pending approval to renew; BEGIN + the run's lock; renew-or-create + COMMIT; the audit rows.
      expect(gated.roundTrips).toHaveLength(4);
      // The claim; BEGIN + fence + snapshot; the job row; the answer and audit rows + COMMIT.
      expect(accepted.roundTrips).toHaveLength(4);
    },
  );
});
