// Issue 28, build 2: dry_run answers a signed price quote (estimated_cost.quote) that invoke honours,
// over HTTP (Agw-Quote header) and MCP (params._meta["agw/quote"]): the run is charged at most the
// quoted amount; changed params, an expired, forged or another installation's quote are refused with
// 409 quote_invalid before anything runs (nothing charged, the handler never called).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readWalletSnapshot } from '@agw/gateway';
import { hashParams } from '@agw/guard';
import { beforeAll, describe, expect, it } from 'vitest';
import { createQuoteCodec } from '../src/meta-tools/quote.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { connectMcp } from './helpers/mcp.js';

let runs = 0;
const stamp = demoCapability<{ label: string }, { stamped: string }>(
  {
    id: 'demo.quoted.stamp',
    summary: 'Stamp a label (test capability).',
    cost_credits: '0.5',
    mutating: true,
    input_schema: {
      type: 'object',
      properties: { label: { type: 'string', minLength: 1 } },
      required: ['label'],
      additionalProperties: false,
    },
  },
  async (input) => {
    runs += 1;
    return { stamped: input.label };
  },
);
const gateway = useGateway(withCapabilities(stamp));

let key: string;
let organizationId: string;
let installationId: string;
let otherKey: string;

beforeAll(async () => {
  ({ key, organizationId, installationId } = await approvedInstallation(gateway, '10'));
  ({ key: otherKey } = await approvedInstallation(gateway, '10'));
});

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown> & {
    readonly estimated_cost?: { amount_max: number; quote?: string; quote_expires_at?: string };
    readonly cost?: { credits: string };
    readonly error?: { code: string; retryable: boolean; message: string };
  };
}

async function post(
  tool: string,
  body: unknown,
  headers: Record<string, string> = {},
  as = key,
): Promise<Answer> {
  const response = await fetch(`${gateway.url}/mcp/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

async function quoteFor(label: string, as = key): Promise<string> {
  const dry = await post('dry_run', { id: stamp.contract.id, params: { label } }, {}, as);
  expect(dry.body).toMatchObject({ valid: true, estimated_cost: { amount_max: 0.5, currency: 'credits' } });
  return dry.body.estimated_cost?.quote as string;
}

const invokeBody = (label: string) => ({
  id: stamp.contract.id,
  params: { label },
  idempotency_key: `quote-test-${label}-${Math.random().toString(36).slice(2)}`,
});
/** The codec of the gateway under test: its secret, so its quotes verify. */
async function gatewayCodec() {
  const secret = Buffer.from((await readFile(join(gateway.dataDir, 'secret.key'), 'utf8')).trim(), 'hex');
  return createQuoteCodec(new SecretBox(secret), 900);
}

/** `quote` with one character in the middle of its MAC changed (a full 6 bits, never the same MAC). */
function alteredMac(quote: string): string {
  const at = quote.lastIndexOf('.') + 11;
  const changed = quote[at] === 'A' ? 'B' : 'A';
  return `${quote.slice(0, at)}${changed}${quote.slice(at + 1)}`;
}

const balance = async () =>
  (await readWalletSnapshot(gateway.knex, organizationId, new Date())).balance_credits;

/** A refusal that stopped before anything ran: 409 quote_invalid, no run, no charge. */
async function expectRefusedBeforeRunning(answer: Promise<Answer>): Promise<void> {
  const [runsBefore, balanceBefore] = [runs, await balance()];
  const { status, body } = await answer;
  expect(status).toBe(409);
  expect(body.error).toMatchObject({ code: 'quote_invalid', retryable: false });
  expect(runs).toBe(runsBefore);
  expect(await balance()).toBe(balanceBefore);
}

describe('a quote invoke honours (HTTP)', () => {
  it('dry_run answers a signed quote with its expiry; invoke with it is charged no more than quoted', async () => {
    const dry = await post('dry_run', { id: stamp.contract.id, params: { label: 'a' } });
    const cost = dry.body.estimated_cost;
    expect(cost?.quote).toMatch(/^agw_q_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const expires = Date.parse(cost?.quote_expires_at as string);
    expect(expires - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    const before = await balance();
    const invoked = await post('invoke', invokeBody('a'), { 'Agw-Quote': cost?.quote as string });
    expect(invoked.status).toBe(200);
    expect(invoked.body).toMatchObject({ status: 'succeeded', result: { stamped: 'a' } });
    const charged = Number(invoked.body.cost?.credits);
    expect(charged).toBeLessThanOrEqual(cost?.amount_max as number);
    expect(Number(before) - Number(await balance())).toBeCloseTo(charged, 6);
  });

  it('a changed param voids the quote', async () => {
    const quote = await quoteFor('b');
    await expectRefusedBeforeRunning(post('invoke', invokeBody('c'), { 'Agw-Quote': quote }));
  });

  it('an expired quote is refused', async () => {
    const codec = await gatewayCodec();
    const { quote } = codec.issue(
      {
        installationId,
        capabilityId: stamp.contract.id,
        version: stamp.contract.version,
        // The params hash of { label: 'd' }: only the expiry is wrong.
        paramsHash: hashParams({ label: 'd' }),
        amountMaxCredits: '0.5',
      },
      new Date(Date.now() - 3_600_000),
    );
    await expectRefusedBeforeRunning(post('invoke', invokeBody('d'), { 'Agw-Quote': quote }));
  });

  it('a quote whose ceiling is below the price is refused', async () => {
    // Signed by the gateway and right in every other term: only its ceiling (0.4) is under the 0.5 price.
    const codec = await gatewayCodec();
    const { quote } = codec.issue(
      {
        installationId,
        capabilityId: stamp.contract.id,
        version: stamp.contract.version,
        paramsHash: hashParams({ label: 'ceiling' }),
        amountMaxCredits: '0.4',
      },
      new Date(),
    );
    const answer = post('invoke', invokeBody('ceiling'), { 'Agw-Quote': quote });
    await expectRefusedBeforeRunning(answer);
    expect((await answer).body.error?.message).toContain("above the quote's ceiling of 0.4 credits");
  });

  it('a forged or altered quote is refused', async () => {
    const quote = await quoteFor('e');
    const [payload, mac] = quote.slice('agw_q_'.length).split('.') as [string, string];
    const terms = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const raised = Buffer.from(JSON.stringify({ ...terms, m: '100' })).toString('base64url');
    await expectRefusedBeforeRunning(
      post('invoke', invokeBody('e'), { 'Agw-Quote': `agw_q_${raised}.${mac}` }),
    );
    await expectRefusedBeforeRunning(post('invoke', invokeBody('e'), { 'Agw-Quote': 'agw_q_bm90.YQ' }));
  });

  it("another installation's quote is refused", async () => {
    const quote = await quoteFor('f', otherKey);
    await expectRefusedBeforeRunning(post('invoke', invokeBody('f'), { 'Agw-Quote': quote }));
  });
});

describe('a quote invoke honours (MCP)', () => {
  const call = async (label: string, quote: string) => {
    const client = await connectMcp(gateway.url, key);
    try {
      return await client.callTool({
        name: 'invoke',
        arguments: invokeBody(label),
        _meta: { 'agw/quote': quote },
      });
    } finally {
      await client.close();
    }
  };

  it('dry_run → invoke with params._meta["agw/quote"] succeeds; changed params are refused', async () => {
    const client = await connectMcp(gateway.url, key);
    const dry = await client.callTool({
      name: 'dry_run',
      arguments: { id: stamp.contract.id, params: { label: 'g' } },
    });
    await client.close();
    const quote = (dry.structuredContent as Answer['body']).estimated_cost?.quote as string;
    expect(quote).toMatch(/^agw_q_/);
    const ok = await call('g', quote);
    expect(ok.isError).not.toBe(true);
    expect(ok.structuredContent).toMatchObject({ status: 'succeeded', cost: { credits: '0.5' } });

    const runsBefore = runs;
    const changed = await call('h', quote);
    expect(changed.isError).toBe(true);
    expect(changed.structuredContent).toMatchObject({ error: { code: 'quote_invalid' } });
    const forged = await call('g', alteredMac(quote));
    expect(forged.structuredContent).toMatchObject({ error: { code: 'quote_invalid' } });
    expect(runs).toBe(runsBefore);
  });
});
