// Long-running capabilities over real HTTP: invoke answers `accepted` with a poll object, a worker runs
// the job through the rest of the guard chain, GET /mcp/jobs/:id answers the stored result. Charged once,
// failures stored as envelopes, replays return the same job, other organizations see 404, and a job
// survives a gateway restart (and a process that died holding its lease).
import { randomUUID } from 'node:crypto';
import { CapabilityError } from '@agw/capabilities';
import { createClient, GatewayError } from '@agw/client';
import { type GatewayHandle, loadConfig, readWalletSnapshot, startGateway } from '@agw/gateway';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, type Answer, onboard } from './helpers/access-client.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema, UUID_V4 } from './helpers/http.js';
import { storedKeyFor } from './helpers/idempotency-hash.js';
import { captureLog } from './helpers/log-capture.js';
import { waitUntil } from './helpers/mail-sink.js';

/** How often the test handlers ran, per `label`: a job must run exactly once. */
const runs = new Map<string, number>();
const count = (label: string) => runs.set(label, (runs.get(label) ?? 0) + 1);

const sleep = demoCapability<{ label: string; ms: number }, { label: string; slept_ms: number }>(
  {
    id: 'test.job.sleep',
    summary: 'Wait a while, then answer (test capability).',
    scopes: ['core:read'],
    cost_credits: '0.25',
    mutating: true,
    long_running: true,
    input_schema: {
      type: 'object',
      properties: { label: { type: 'string', minLength: 1 }, ms: { type: 'integer', minimum: 0 } },
      required: ['label', 'ms'],
      additionalProperties: false,
    },
  },
  async (input) => {
    await new Promise((resolve) => setTimeout(resolve, input.ms));
    count(input.label);
    return { label: input.label, slept_ms: input.ms };
  },
);
const failing = demoCapability<{ label: string }, never>(
  { ...sleep.contract, id: 'test.job.fail', summary: 'Always refuses (test capability).' },
  async (input, ctx) => {
    count(input.label);
    // A write before the refusal: it rolls back with the handler's savepoint, the failure commits.
    await ctx.mail.stage({ to: 'owner@example.com', subject: input.label, text: 'never sent' });
    throw new CapabilityError('conflict', 'The thing to work on is locked.');
  },
);
/** Throws an unexpected error on its first run per label, then succeeds. */
const flaky = demoCapability<{ label: string }, { label: string }>(
  { ...sleep.contract, id: 'test.job.flaky', summary: 'Fails once (test capability).' },
  async (input) => {
    count(input.label);
    if (runs.get(input.label) === 1) throw new Error('transient failure with internal detail');
    return { label: input.label };
  },
);
const { handlers, catalog } = withCapabilities(sleep, failing, flaky);

/** An approved installation with a funded wallet. */
async function installation(client: AccessClient, knex: Knex, balance = '10') {
  const flow = await onboard(client);
  await knex('installations')
    .where({ id: flow.installationId })
    .update({ owner_verified_at: knex.fn.now(), operator_approval_status: 'approved' });
  const { organization_id } = await knex('installations').where({ id: flow.installationId }).first();
  await knex('wallets').insert({ organization_id, balance });
  return { key: flow.installationKey, organizationId: organization_id as string };
}

async function invoke(client: AccessClient, key: string, body: unknown): Promise<Answer> {
  const answer = await client.post('/mcp/invoke', body, { idem: null, key });
  expectSchema(answer.status === 200 ? 'InvokeResponse' : 'ErrorEnvelope', answer.json);
  return answer;
}

/** Polls poll.url until the job is no longer `accepted`; every answer has the InvokeResponse shape. */
async function settled(client: AccessClient, key: string, url: string): Promise<Answer> {
  return waitUntil(async () => {
    const answer = await client.get(url, key);
    if (answer.status === 200) expectSchema('InvokeResponse', answer.json);
    return answer.status === 200 && answer.json.status === 'accepted' ? undefined : answer;
  });
}

// What billing and `agw wallet show` see: the rolled-up balance minus the charges not rolled up yet.
const balanceOf = async (knex: Knex, organizationId: string) =>
  Number((await readWalletSnapshot(knex, organizationId, new Date())).balance_credits).toFixed(2);
const idem = () => `job-${randomUUID()}`;

describe('a long-running invoke on one gateway', () => {
  const gateway = useGateway({ handlers, catalog, jobs: { pollIntervalMs: 50, retryDelayMs: 50 } });
  let key: string;
  let organizationId: string;
  beforeAll(async () => {
    ({ key, organizationId } = await installation(gateway.client, gateway.knex));
  });

  it('answers accepted with a poll object, then the job succeeds with its result, charged once', async () => {
    const label = randomUUID();
    const accepted = await invoke(gateway.client, key, {
      id: 'test.job.sleep',
      params: { label, ms: 300 },
      idempotency_key: idem(),
    });
    expect(accepted.status).toBe(200);
    expect(accepted.json).toMatchObject({
      interface_version: '1.0',
      status: 'accepted',
      capability_id: 'test.job.sleep',
      resolved_version: '1.0.0',
      poll: { job_id: expect.stringMatching(UUID_V4), job_status: 'queued', retry_after_seconds: 1 },
    });
    const { poll } = accepted.json;
    expect(poll.url).toBe(`/mcp/jobs/${poll.job_id}`);
    expect(accepted.json).not.toHaveProperty('result');
    const acceptedAudit = await gateway
      .knex('audit_events')
      .where({ audit_id: accepted.json.audit_id })
      .first();
    expect(acceptedAudit).toMatchObject({ action: 'capability.invoke', outcome: 'accepted' });

    const done = await settled(gateway.client, key, poll.url);
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({
      interface_version: '1.0',
      status: 'succeeded',
      capability_id: 'test.job.sleep',
      resolved_version: '1.0.0',
      result: { label, slept_ms: 300 },
      cost: { credits: '0.25', currency: 'credits' },
    });
    expect(done.json.audit_id).not.toBe(accepted.json.audit_id);
    const outcome = await gateway.knex('audit_events').where({ audit_id: done.json.audit_id }).first();
    expect(outcome).toMatchObject({ outcome: 'succeeded' });
    expect(runs.get(label)).toBe(1);
    expect(await balanceOf(gateway.knex, organizationId)).toBe('9.75');
    // Polling a finished job again answers the same stored body and charges nothing more.
    const again = await gateway.client.get(poll.url, key);
    expect(again.json).toEqual(done.json);
    expect(await balanceOf(gateway.knex, organizationId)).toBe('9.75');
  });

  it('the SDK waits for the job: invoke({ waitForJob }) returns the final answer, getJob reads it', async () => {
    const sdk = createClient({ baseUrl: gateway.url, apiKey: key });
    const label = randomUUID();
    const final = await sdk.unchecked.invoke('test.job.sleep', { label, ms: 50 }, { waitForJob: true });
    expect(final).toMatchObject({ status: 'succeeded', result: { label, slept_ms: 50 } });
    const [job] = await gateway.knex('invoke_jobs').whereRaw("params->>'label' = ?", [label]);
    expect(await sdk.getJob(job.id)).toEqual(final);
    const failed = await sdk.unchecked
      .invoke('test.job.fail', { label: randomUUID(), ms: 0 }, { waitForJob: { maxWaitMs: 60_000 } })
      .catch((caught: unknown) => caught);
    expect(GatewayError.isGatewayError(failed) && failed.code).toBe('conflict');
  });

  it('a replay with the same idempotency key returns the same accepted answer and no second job', async () => {
    const label = randomUUID();
    const body = { id: 'test.job.sleep', params: { label, ms: 0 }, idempotency_key: idem() };
    const first = await invoke(gateway.client, key, body);
    const replay = await invoke(gateway.client, key, body);
    expect(replay.json).toEqual({ ...first.json, replayed: true });
    // The job row holds the key only as its keyed hash (issue 12).
    const stored = storedKeyFor(gateway.dataDir, body.idempotency_key);
    expect(await gateway.knex('invoke_jobs').where({ idempotency_key: stored })).toHaveLength(1);
    await settled(gateway.client, key, first.json.poll.url);
    expect(runs.get(label)).toBe(1);
  });

  it('stores a failing job as its error envelope, keeps none of its writes and charges nothing', async () => {
    const label = randomUUID();
    const before = await balanceOf(gateway.knex, organizationId);
    const accepted = await invoke(gateway.client, key, {
      id: 'test.job.fail',
      params: { label, ms: 0 },
      idempotency_key: idem(),
    });
    expect(accepted.json.status).toBe('accepted');
    const failed = await settled(gateway.client, key, accepted.json.poll.url);
    expect(failed.status).toBe(409);
    const error = expectEnvelope(failed.json, 'conflict');
    expect(error.message).toBe('The thing to work on is locked.');
    expect((await gateway.knex('audit_events').where({ audit_id: error.audit_id }).first()).outcome).toBe(
      'failed',
    );
    expect(runs.get(label)).toBe(1);
    expect(await balanceOf(gateway.knex, organizationId)).toBe(before);
    const job = await gateway.knex('invoke_jobs').where({ id: accepted.json.poll.job_id }).first();
    expect(job).toMatchObject({ status: 'failed', attempts: 1, error_code: 'conflict' });
    expect(await gateway.knex('mail_outbox').where({ subject: label })).toEqual([]);
  });

  it('tries a job again after an unexpected failure, and charges only the run that succeeded', async () => {
    const label = randomUUID();
    const before = Number(await balanceOf(gateway.knex, organizationId));
    const accepted = await invoke(gateway.client, key, {
      id: 'test.job.flaky',
      params: { label, ms: 0 },
      idempotency_key: idem(),
    });
    const done = await settled(gateway.client, key, accepted.json.poll.url);
    expect(done.json).toMatchObject({ status: 'succeeded', result: { label } });
    expect(done.text).not.toContain('internal detail');
    expect(runs.get(label)).toBe(2);
    const job = await gateway.knex('invoke_jobs').where({ id: accepted.json.poll.job_id }).first();
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(Number(await balanceOf(gateway.knex, organizationId))).toBeCloseTo(before - 0.25, 6);
  });

  it('refuses synchronously when billing refuses: no job', async () => {
    const poor = await installation(gateway.client, gateway.knex, '0.1');
    const refused = await invoke(gateway.client, poor.key, {
      id: 'test.job.sleep',
      params: { label: randomUUID(), ms: 0 },
      idempotency_key: idem(),
    });
    expect(refused.status).toBe(403);
    expectEnvelope(refused.json, 'budget_exceeded');
    expect(await gateway.knex('invoke_jobs').where({ organization_id: poor.organizationId })).toHaveLength(0);
  });

  it("answers 404 for another organization's job exactly as for an unknown id", async () => {
    const accepted = await invoke(gateway.client, key, {
      id: 'test.job.sleep',
      params: { label: randomUUID(), ms: 0 },
      idempotency_key: idem(),
    });
    const other = await installation(gateway.client, gateway.knex);
    const foreign = await gateway.client.get(accepted.json.poll.url, other.key);
    const unknown = await gateway.client.get(`/mcp/jobs/${randomUUID()}`, other.key);
    const malformed = await gateway.client.get('/mcp/jobs/not-a-uuid', other.key);
    for (const answer of [foreign, unknown, malformed]) {
      expect(answer.status).toBe(404);
      expectEnvelope(answer.json, 'not_found');
    }
    const strip = (answer: Answer) => ({ ...answer.json.error, audit_id: undefined });
    expect(strip(foreign)).toEqual(strip(unknown));
    expect(strip(foreign)).toEqual(strip(malformed));
    expectEnvelope((await gateway.client.get(accepted.json.poll.url)).json, 'unauthenticated');
    expect((await settled(gateway.client, key, accepted.json.poll.url)).json.status).toBe('succeeded');
  });
});

describe('a job across a gateway restart', () => {
  let environment: TestEnvironment;
  let gateway: GatewayHandle | undefined;
  beforeAll(async () => {
    environment = await createTestEnvironment();
  });
  afterAll(async () => {
    await gateway?.close();
    await environment?.cleanup();
  });
  const start = (enabled: boolean) =>
    startGateway(loadConfig(environment.env), {
      logger: captureLog().logger,
      handlers,
      catalog,
      jobs: { enabled, pollIntervalMs: 50 },
    });

  it('is run exactly once by the next gateway on the same storage, also when a dead process held its lease', async () => {
    // The first gateway accepts two jobs but runs none (its worker is off), then stops.
    gateway = await start(false);
    let client = new AccessClient(gateway.url);
    const { key, organizationId } = await installation(client, gateway.knex);
    const [queuedLabel, leasedLabel] = [randomUUID(), randomUUID()];
    const queued = await invoke(client, key, {
      id: 'test.job.sleep',
      params: { label: queuedLabel, ms: 100 },
      idempotency_key: idem(),
    });
    const leased = await invoke(client, key, {
      id: 'test.job.sleep',
      params: { label: leasedLabel, ms: 100 },
      idempotency_key: idem(),
    });
    // What a process that crashed mid-run leaves behind: its claim committed, its run rolled back. The
    // lease is an hour long, so the next gateway meets it unexpired however slow the restart; the test
    // expires it itself below.
    await gateway
      .knex('invoke_jobs')
      .where({ id: leased.json.poll.job_id })
      .update({
        status: 'running',
        attempts: 1,
        lease_owner: 'worker:crashed',
        lease_expires_at: gateway.knex.raw("now() + interval '1 hour'"),
      });
    // Accepting charges nothing: the charge comes with the result.
    expect(await balanceOf(gateway.knex, organizationId)).toBe('10.00');
    await gateway.close();
    expect(runs.get(queuedLabel)).toBeUndefined();

    gateway = await start(true);
    client = new AccessClient(gateway.url);
    const done = await settled(client, key, queued.json.poll.url);
    expect(done.json).toMatchObject({ status: 'succeeded', result: { label: queuedLabel } });
    // The crashed process's lease has not expired yet: nobody runs that job meanwhile.
    const stillLeased = await client.get(leased.json.poll.url, key);
    expect(stillLeased.json).toMatchObject({ status: 'accepted', poll: { job_status: 'running' } });
    expect(runs.get(leasedLabel)).toBeUndefined();

    // The dead process's lease runs out: the next poll takes the job over.
    await gateway
      .knex('invoke_jobs')
      .where({ id: leased.json.poll.job_id })
      .update({ lease_expires_at: gateway.knex.raw("now() - interval '1 second'") });
    const recovered = await settled(client, key, leased.json.poll.url);
    expect(recovered.json).toMatchObject({ status: 'succeeded', result: { label: leasedLabel } });
    expect(runs.get(queuedLabel)).toBe(1);
    expect(runs.get(leasedLabel)).toBe(1);
    const job = await gateway.knex('invoke_jobs').where({ id: leased.json.poll.job_id }).first();
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2, lease_owner: null });
    expect(await balanceOf(gateway.knex, organizationId)).toBe('9.50');
    const charges = await gateway
      .knex('wallet_ledger')
      .where({ organization_id: organizationId, kind: 'charge' });
    expect(charges).toHaveLength(2);
  });
});
