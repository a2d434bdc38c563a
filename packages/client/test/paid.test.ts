/**
 * Pins runPaidCapability (describe → dry_run → budget check → invoke) and the polling of `accepted`
 * invocations. The budget decision is under result.allowed; nothing is invoked when it is not true.
 */
import type { InvokeResponse } from '@agw/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BudgetDeniedError, createClient, DryRunInvalidError, InvocationTimeoutError } from '../src/index.js';
import { FakeGateway, fakeTime } from './fake-gateway.js';
import { INSTALLATION_KEY, succeeded } from './fixtures.js';

const CAPABILITY = 'documents.document.upload';
const PARAMS = { file_name: 'a.txt', mime_type: 'text/plain', content_base64: 'aGk=' };

let gateway: FakeGateway;
let time: ReturnType<typeof fakeTime>;
beforeEach(async () => {
  gateway = await new FakeGateway().start();
  time = fakeTime();
  gateway.on('POST', '/mcp/describe', {
    status: 200,
    body: { id: CAPABILITY, version: '1.0.0', cost_credits: '0.02', dry_run: 'supported', mutating: true },
  });
  gateway.on('POST', '/mcp/dry_run', {
    status: 200,
    body: {
      interface_version: '1.0',
      valid: true,
      capability_id: CAPABILITY,
      resolved_version: '1.0.0',
      audit_id: 'audit-dry',
      estimated_cost: { amount_max: 0.5 },
    },
  });
});
afterEach(() => gateway.close());

function budgetAnswer(allowed: boolean) {
  return succeeded('wallet.agent_budget.guard.check', { allowed, wallet_balance_credits: '0.10' });
}

/** /mcp/invoke: the budget check answers `budget`, the capability answers a succeeded upload. */
function invokeAnswers(budget: unknown) {
  gateway.on('POST', '/mcp/invoke', (request) => {
    const body = request.body as { id: string };
    return body.id === 'wallet.agent_budget.guard.check'
      ? { status: 200, body: budget }
      : { status: 200, body: succeeded(CAPABILITY, { document: { id: 'doc-1' } }) };
  });
}

const client = () =>
  createClient({ baseUrl: gateway.url, apiKey: INSTALLATION_KEY, now: time.now, sleep: time.sleep });

describe('runPaidCapability', () => {
  it('describes, dry-runs, checks the budget with amount_max, then invokes with an idempotency key', async () => {
    invokeAnswers(budgetAnswer(true));
    const run = await client().runPaidCapability(CAPABILITY, PARAMS, { window: 'day' });
    expect(run.invocation.result).toEqual({ document: { id: 'doc-1' } });
    expect(run.budget.result?.allowed).toBe(true);
    expect(gateway.requests.map((request) => request.path)).toEqual([
      '/mcp/describe',
      '/mcp/dry_run',
      '/mcp/invoke',
      '/mcp/invoke',
    ]);
    const [check, invoke] = gateway.calls('POST', '/mcp/invoke');
    expect(check?.body).toMatchObject({
      id: 'wallet.agent_budget.guard.check',
      params: { capability_id: CAPABILITY, estimated_cost_credits: 0.5, window: 'day' },
    });
    expect(gateway.calls('POST', '/mcp/dry_run')[0]?.body).toEqual({
      id: CAPABILITY,
      version: '1.0.0',
      params: PARAMS,
    });
    expect(invoke?.body).toEqual({
      id: CAPABILITY,
      version: '1.0.0',
      params: PARAMS,
      idempotency_key: expect.stringMatching(/^.{16,128}$/),
    });
  });

  it('defaults the window to task and uses the caller’s idempotency key for the paid invoke', async () => {
    invokeAnswers(budgetAnswer(true));
    await client().runPaidCapability(CAPABILITY, PARAMS, { idempotencyKey: 'upload-key-000000001' });
    const [check, invoke] = gateway.calls('POST', '/mcp/invoke');
    expect(check?.body).toMatchObject({ params: { window: 'task' } });
    expect(invoke?.body).toMatchObject({ idempotency_key: 'upload-key-000000001' });
  });

  it('refuses to invoke when result.allowed is false, carrying the guard answer', async () => {
    invokeAnswers(budgetAnswer(false));
    const error = await client()
      .runPaidCapability(CAPABILITY, PARAMS)
      .catch((caught: unknown) => caught);
    expect(BudgetDeniedError.isBudgetDeniedError(error)).toBe(true);
    expect(error).toMatchObject({ capabilityId: CAPABILITY, estimatedCostCredits: 0.5 });
    expect((error as BudgetDeniedError).guard.result).toMatchObject({ allowed: false });
    expect(gateway.calls('POST', '/mcp/invoke')).toHaveLength(1);
  });

  it('refuses when the check is not succeeded, even with allowed true at the top level', async () => {
    invokeAnswers({ ...budgetAnswer(true), status: 'pending_approval', result: undefined, allowed: true });
    await expect(client().runPaidCapability(CAPABILITY, PARAMS)).rejects.toBeInstanceOf(BudgetDeniedError);
    expect(gateway.calls('POST', '/mcp/invoke')).toHaveLength(1);
  });

  it('stops with DryRunInvalidError and the violations when the dry run is not valid', async () => {
    const violations = [{ schema_pointer: '/params/file_name', keyword: 'pattern', message: 'bad name' }];
    gateway.on('POST', '/mcp/dry_run', {
      status: 200,
      body: {
        valid: false,
        capability_id: CAPABILITY,
        resolved_version: '1.0.0',
        audit_id: 'audit-dry',
        violations,
      },
    });
    invokeAnswers(budgetAnswer(true));
    const error = await client()
      .runPaidCapability(CAPABILITY, PARAMS)
      .catch((caught: unknown) => caught);
    expect(DryRunInvalidError.isDryRunInvalidError(error)).toBe(true);
    expect(error).toMatchObject({ violations, auditId: 'audit-dry' });
    expect(gateway.calls('POST', '/mcp/invoke')).toHaveLength(0);
  });
});

describe('accepted invocations', () => {
  const accepted = (retryAfter?: number): InvokeResponse => ({
    ...succeeded(CAPABILITY, undefined),
    status: 'accepted' as const,
    poll: {
      url: '/mcp/invocations/audit-1',
      ...(retryAfter === undefined ? {} : { retry_after_seconds: retryAfter }),
    },
  });

  it('pollInvocation() GETs poll.url with the installation key', async () => {
    gateway.on('GET', '/mcp/invocations/audit-1', {
      status: 200,
      body: succeeded(CAPABILITY, { done: true }),
    });
    const answer = await client().pollInvocation({ url: '/mcp/invocations/audit-1' });
    expect(answer.result).toEqual({ done: true });
    expect(gateway.calls('GET', '/mcp/invocations/audit-1')[0]?.headers.authorization).toBe(
      `Bearer ${INSTALLATION_KEY}`,
    );
  });

  it('pollInvocation() refuses a poll URL on another host (the key would leave the gateway)', async () => {
    await expect(client().pollInvocation({ url: 'https://evil.example/x' })).rejects.toThrow(TypeError);
    await expect(client().pollInvocation({ url: '//evil.example/x' })).rejects.toThrow(TypeError);
    expect(gateway.requests).toHaveLength(0);
  });

  it('waitForInvocation() polls honouring retry_after_seconds (default 5 s) until final', async () => {
    gateway.on('GET', '/mcp/invocations/audit-1', [
      { status: 200, body: accepted() },
      { status: 200, body: succeeded(CAPABILITY, { done: true }) },
    ]);
    const final = await client().waitForInvocation(accepted(3) as InvokeResponse);
    expect(final.status).toBe('succeeded');
    expect(time.sleeps).toEqual([3000, 5000]);
  });

  it('getJob() GETs /mcp/jobs/<id> with the installation key', async () => {
    gateway.on('GET', '/mcp/jobs/job-1', { status: 200, body: succeeded(CAPABILITY, { done: true }) });
    expect((await client().getJob('job-1')).result).toEqual({ done: true });
    expect(gateway.calls('GET', '/mcp/jobs/job-1')[0]?.headers.authorization).toBe(
      `Bearer ${INSTALLATION_KEY}`,
    );
  });

  it('invoke({ waitForJob: true }) polls an accepted answer until final, invoking once', async () => {
    const job = (retryAfter: number): InvokeResponse => ({
      ...succeeded(CAPABILITY, undefined),
      status: 'accepted' as const,
      poll: { job_id: 'job-1', url: '/mcp/jobs/job-1', retry_after_seconds: retryAfter },
    });
    gateway.on('POST', '/mcp/invoke', { status: 200, body: job(1) });
    gateway.on('GET', '/mcp/jobs/job-1', [
      { status: 200, body: job(2) },
      { status: 200, body: job(4) },
      { status: 200, body: succeeded(CAPABILITY, { document: { id: 'doc-1' } }) },
    ]);
    const final = await client().invoke(CAPABILITY, PARAMS, { waitForJob: true });
    expect(final).toMatchObject({ status: 'succeeded', result: { document: { id: 'doc-1' } } });
    // The gateway's retry_after_seconds grows with the job's age: the SDK backs off as told.
    expect(time.sleeps).toEqual([1000, 2000, 4000]);
    expect(gateway.calls('POST', '/mcp/invoke')).toHaveLength(1);
    expect(gateway.calls('GET', '/mcp/jobs/job-1')).toHaveLength(3);
  });

  it('invoke({ waitForJob: { maxWaitMs } }) gives up with InvocationTimeoutError; without it returns accepted', async () => {
    gateway.on('POST', '/mcp/invoke', { status: 200, body: accepted(10) });
    gateway.on('GET', '/mcp/invocations/audit-1', { status: 200, body: accepted(10) });
    expect((await client().invoke(CAPABILITY, PARAMS)).status).toBe('accepted');
    const error = await client()
      .invoke(CAPABILITY, PARAMS, { waitForJob: { maxWaitMs: 25_000 } })
      .catch((caught: unknown) => caught);
    expect(InvocationTimeoutError.isInvocationTimeoutError(error)).toBe(true);
    expect(gateway.calls('GET', '/mcp/invocations/audit-1')).toHaveLength(2);
  });

  it('waitForInvocation() returns a final answer untouched and gives up after maxWaitMs', async () => {
    const done = succeeded(CAPABILITY, {}) as InvokeResponse;
    await expect(client().waitForInvocation(done)).resolves.toBe(done);
    gateway.on('GET', '/mcp/invocations/audit-1', { status: 200, body: accepted(10) });
    const error = await client()
      .waitForInvocation(accepted(10) as InvokeResponse, { maxWaitMs: 25_000 })
      .catch((caught: unknown) => caught);
    expect(InvocationTimeoutError.isInvocationTimeoutError(error)).toBe(true);
    expect(time.sleeps).toEqual([10_000, 10_000]);
  });
});
