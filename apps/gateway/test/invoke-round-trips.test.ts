// A mutating invoke on PostgreSQL takes four round trips to the database (design.md: one round trip per
// mutation; issue 13 item 4 asks for at most five): the claim; BEGIN + fence + wallet snapshot; the
// handler's statement with the tenant's role; the stored answer, charge and every audit row in one
// statement, with COMMIT in the same batch. Counted
// as `pg` client queries (one batch is one query) made on behalf of that one HTTP request: the request
// is tagged when the server receives it and the tag follows its async work, so the gateway's
// background work (roll-up, sealer, job poller) is not counted.
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import { readWalletSnapshot } from '@agw/gateway';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const counted = new AsyncLocalStorage<{ queries: string[] }>();
const TAG = 'x-test-count-round-trips';

// Installed before the gateway starts: requests carrying the tag run with a fresh counter.
const emit = http.Server.prototype.emit as (this: http.Server, event: string, ...args: unknown[]) => boolean;
http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
  const request = args[0] as http.IncomingMessage | undefined;
  if (event === 'request' && request?.headers[TAG] !== undefined) {
    const counter = sinks.get(String(request.headers[TAG]));
    if (counter) return counted.run(counter, () => emit.call(this, event, ...args));
  }
  return emit.call(this, event, ...args);
} as typeof http.Server.prototype.emit;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const config = args[0] as string | { text?: string } | undefined;
  const text = typeof config === 'string' ? config : (config?.text ?? '');
  counted.getStore()?.queries.push(text.replace(/\s+/g, ' ').slice(0, 60));
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;
const sinks = new Map<string, { queries: string[] }>();

const gateway = useGateway();
let key: string;
let organizationId: string;
let uploads = 0;

beforeAll(async () => {
  ({ key, organizationId } = await approvedInstallation(gateway, '1'));
});

/** Uploads a document; answers the status and the queries its request made. */
async function upload(): Promise<{ status: number; cost: unknown; queries: string[] }> {
  uploads += 1;
  const tag = `upload-${uploads}`;
  const sink = { queries: [] as string[] };
  sinks.set(tag, sink);
  const response = await fetch(`${gateway.url}/mcp/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', [TAG]: tag },
    body: JSON.stringify({
      id: 'documents.document.upload',
      params: {
        file_name: 'note.txt',
        mime_type: 'text/plain',
        content_base64: Buffer.from(`note ${uploads}`).toString('base64'),
      },
      idempotency_key: `round-trips-${Date.now()}-${uploads}`,
    }),
  });
  const body = (await response.json()) as { cost?: unknown };
  sinks.delete(tag);
  return { status: response.status, cost: body.cost, queries: sink.queries };
}

describe.runIf(process.env.DATABASE_URL)('a mutating invoke on PostgreSQL', () => {
  it('takes four round trips, and still charges and stores once', async () => {
    await upload(); // the key, installation and kill-switch caches are warm from here on
    const before = await readWalletSnapshot(gateway.knex, organizationId, new Date());
    const { status, cost, queries } = await upload();
    expect(status).toBe(200);
    expect(queries).toHaveLength(4);
    expect(queries[0]).toMatch(/^INSERT INTO idempotency_keys/); // the claim, autocommitted
    const after = await readWalletSnapshot(gateway.knex, organizationId, new Date());
    expect(Number(before.balance_credits) - Number(after.balance_credits)).toBeCloseTo(
      Number((cost as { credits: string }).credits),
    );
  });
});
