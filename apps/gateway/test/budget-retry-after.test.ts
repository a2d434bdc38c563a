// Issue 28, finding 1: under a daily cap of 1 credit, dry_run said `valid: true` and invoke's refusal was
// `retryable: false` with no time, though the cap resets at UTC midnight. Now invoke's refusal says when
// (retry_after_seconds = Retry-After = the seconds until UTC midnight, retryable) and dry_run answers
// `valid: false` with the same budget violation; a short balance stays non-retryable without a time.
import { beforeAll, describe, expect, it } from 'vitest';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const paid = demoCapability({ id: 'demo.capped.read', cost_credits: '0.5' }, async () => ({ ok: true }));
const gateway = useGateway(withCapabilities(paid));

let cappedKey: string;
let poorKey: string;
let burningKey: string;

beforeAll(async () => {
  const capped = await approvedInstallation(gateway, '10');
  cappedKey = capped.key;
  await gateway.knex('policy_profiles').insert({ organization_id: capped.organizationId, daily_cap: '1' });
  poorKey = (await approvedInstallation(gateway, '0.25')).key;
  const burning = await approvedInstallation(gateway, '10');
  burningKey = burning.key;
  await gateway
    .knex('policy_profiles')
    .insert({ organization_id: burning.organizationId, burn_rate_hourly_cap: '1' });
});

async function post(tool: string, key: string) {
  const response = await fetch(`${gateway.url}/mcp/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: paid.contract.id, params: {} }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Whole seconds from `at` until the next UTC midnight, as the cap counts its day. */
const untilMidnight = (at: number) => {
  const now = new Date(at);
  return Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - at) / 1000);
};

describe('budget refusals that lift at a known time say when', () => {
  it('a daily-cap refusal is retryable with retry_after_seconds and Retry-After until UTC midnight', async () => {
    expect((await post('invoke', cappedKey)).status).toBe(200);
    expect((await post('invoke', cappedKey)).status).toBe(200);
    const before = Date.now();
    const refused = await post('invoke', cappedKey);
    const after = Date.now();
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'budget_exceeded',
      retryable: true,
      details: [{ cap: 'daily_cap', limit_credits: '1', spent_credits: '1' }],
    });
    const wait = refused.body.error.retry_after_seconds;
    expect(wait).toBeGreaterThanOrEqual(untilMidnight(after));
    expect(wait).toBeLessThanOrEqual(untilMidnight(before));
    expect(refused.headers.get('retry-after')).toBe(String(wait));
  });

  it('dry_run under the spent daily cap answers valid: false with that violation', async () => {
    const before = Date.now();
    const dry = await post('dry_run', cappedKey);
    const after = Date.now();
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ valid: false });
    expect(dry.body.estimated_cost).toBeUndefined();
    const [violation] = dry.body.violations;
    expect(violation).toMatchObject({ schema_pointer: '', keyword: 'budget', code: 'budget_exceeded' });
    expect(violation.message).toMatch(/daily_cap/);
    expect(violation.hint).toMatch(/resets at/);
    expect(violation.retry_after_seconds).toBeGreaterThanOrEqual(untilMidnight(after));
    expect(violation.retry_after_seconds).toBeLessThanOrEqual(untilMidnight(before));
  });

  it('a burn-rate refusal waits until the first charge has left the hour window (whole UTC minutes)', async () => {
    const first = Date.now();
    expect((await post('invoke', burningKey)).status).toBe(200);
    const charged = Date.now();
    expect((await post('invoke', burningKey)).status).toBe(200);
    const refused = await post('invoke', burningKey);
    expect(refused.body.error).toMatchObject({ code: 'budget_exceeded', retryable: true });
    // The first charge's minute leaves the window 61 minutes after it began: 60 to 61 minutes from it.
    const leaves = Math.floor(charged / 60_000) * 60_000 + 3_660_000;
    expect(refused.body.error.retry_after_seconds).toBeLessThanOrEqual(Math.ceil((leaves - first) / 1000));
    expect(refused.body.error.retry_after_seconds).toBeGreaterThanOrEqual(3600 - 60);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.error.retry_after_seconds));
  });

  it('a short balance is refused without a time and is not retryable, by invoke and dry_run alike', async () => {
    const refused = await post('invoke', poorKey);
    expect(refused.body.error).toMatchObject({ code: 'budget_exceeded', retryable: false });
    expect(refused.body.error.retry_after_seconds).toBeUndefined();
    expect(refused.headers.get('retry-after')).toBeNull();
    const dry = await post('dry_run', poorKey);
    expect(dry.body).toMatchObject({
      valid: false,
      violations: [{ keyword: 'budget', code: 'budget_exceeded' }],
    });
    expect(dry.body.violations[0].retry_after_seconds).toBeUndefined();
  });
});
