// What one invoke sends to the database, counted per HTTP request: the request is tagged when the server
// receives it and the tag follows its async work, so the gateway's background work (roll-up, sealer,
// outbox) is not counted. On the invoke route nothing goes through knex's query builder or knex's
// transactions (design.md: raw, parameterized SQL on the hot path): knex only lends pooled connections
// to the SQL port, so it emits no `query` event for a paid read, an approval-gated invoke or a
// long-running invoke's acceptance or its poll. On PostgreSQL the round trips (`pg` client queries; one batch is one
// query) are counted too.
import { beforeAll, describe, expect, it } from 'vitest';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { currentStatements, type RequestStatements, sendCounted } from './helpers/request-statements.js';

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
  gateway.knex.on('query', (data: { sql?: string }) => currentStatements()?.knex.push(data.sql ?? ''));
});

/** Sends `body` to `path` (GET without one); answers the status, the answer and what its request sent. */
async function send(
  path: string,
  body?: object,
): Promise<{ status: number; outcome: unknown; answer: Record<string, unknown> } & RequestStatements> {
  requests += 1;
  const {
    response,
    body: answer,
    statements,
  } = await sendCounted(`${gateway.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = answer as Record<string, unknown>;
  return { status: response.status, outcome: json.status, answer: json, ...statements };
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
    'on PostgreSQL, takes four round trips for a paid read and for a new approval, three for an acceptance',
    async () => {
      const read = await invoke({ id: 'demo.paid.read', params: {} });
      const gated = await invoke({ id: 'demo.vault.open', params: { door: 'round-trips' } });
      const accepted = await accept();
      expect([read.outcome, gated.outcome, accepted.outcome]).toEqual([
        'succeeded',
        'pending_approval',
        'accepted',
      ]);
      // The snapshot; the handler's statement with the tenant before it (no transaction around the
      // handler: src/invoke/paid-read.ts); BEGIN and the charge; the audit rows with COMMIT.
      expect(read.roundTrips).toHaveLength(4);
      expect(read.roundTrips[1]).toMatch(/^\s*select 1 as one/);
      expect(read.roundTrips[2]).toMatch(/^\s*insert into wallet_ledger/);
      expect(read.roundTrips[3]).toMatch(/^\s*insert into audit_events/);
      // No pending approval to renew; BEGIN + the run's lock; renew-or-create + COMMIT; the audit rows.
      expect(gated.roundTrips).toHaveLength(4);
      // BEGIN + the key's hold + snapshot; the job row; the answer and audit rows + COMMIT.
      expect(accepted.roundTrips).toHaveLength(3);
    },
  );
});
