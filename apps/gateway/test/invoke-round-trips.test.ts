// A mutating invoke on PostgreSQL takes three round trips to the database (design.md: one round trip per
// mutation; issue 13 item 4 asks for at most five): BEGIN + the key's hold + wallet snapshot; the
// handler's statement with the tenant's role; the stored answer, charge and every audit row in one
// statement, with COMMIT in the same batch. Counted
// as `pg` client queries (one batch is one query) made on behalf of that one HTTP request: the request
// is tagged when the server receives it and the tag follows its async work, so the gateway's
// background work (roll-up, sealer, job poller) is not counted.
import { readWalletSnapshot } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { sendCounted } from './helpers/request-statements.js';

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
  const { response, body, statements } = await sendCounted(`${gateway.url}/mcp/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
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
  return { status: response.status, cost: (body as { cost?: unknown }).cost, queries: statements.roundTrips };
}

describe.runIf(process.env.DATABASE_URL)('a mutating invoke on PostgreSQL', () => {
  it('takes three round trips, and still charges and stores once', async () => {
    await upload(); // the key, installation and kill-switch caches are warm from here on
    const before = await readWalletSnapshot(gateway.knex, organizationId, new Date());
    const { status, cost, queries } = await upload();
    expect(status).toBe(200);
    expect(queries).toHaveLength(3);
    // The key held and read first: nothing autocommitted ahead of it.
    expect(queries[0]).toMatch(/^SELECT current_setting\('agw.idempotency_held'\)/);
    const after = await readWalletSnapshot(gateway.knex, organizationId, new Date());
    expect(Number(before.balance_credits) - Number(after.balance_credits)).toBeCloseTo(
      Number((cost as { credits: string }).credits),
    );
  });
});
