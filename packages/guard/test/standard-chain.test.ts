// The nine built-in guards together on the in-memory ports: the paths an agent notices.
import { describe, expect, it } from 'vitest';
import { createStandardChain, type GuardRequest } from '../src/index.js';
import { createWorld, organizationId, paymentCapability, uploadCapability } from './fixtures.js';

function setup() {
  const world = createWorld();
  const chain = createStandardChain({
    ...world,
    rateLimits: { perInstallation: { limit: 50, windowSeconds: 60 } },
  });
  const invokeRequest = (overrides: Partial<GuardRequest> = {}): GuardRequest => ({
    authorization: `Bearer ${world.token}`,
    capability: uploadCapability,
    params: { file_name: 'a.pdf', mime_type: 'application/pdf' },
    idempotencyKey: 'idem-0000000000000001',
    ...overrides,
  });
  const balance = async () =>
    (await world.wallet.getSnapshot(organizationId, world.clock.now())).balance_credits;
  return { ...world, chain, invokeRequest, balance };
}

describe('the standard chain', () => {
  it('passes all nine guards, then settles: one charge, an allowed and a succeeded audit record', async () => {
    const { chain, invokeRequest, audit, balance } = setup();
    const run = await chain.run(invokeRequest());
    expect(run.outcome).toBe('pass');
    expect(run.trace.map((entry) => entry.guard)).toEqual(chain.names);
    const settlement = await chain.settle(run, { status: 'succeeded' });
    expect(settlement).toMatchObject({ outcome: 'succeeded', chargedCredits: '0.5' });
    expect(await balance()).toBe('9.5');
    const records = audit.records();
    expect(records.map((record) => record.outcome)).toEqual(['allowed', 'succeeded']);
    expect(records[1]).toMatchObject({
      audit_id: settlement.auditId,
      decision_audit_id: records[0]?.audit_id,
      charged_credits: '0.5',
    });
    // Nine checks plus billing's settle, which unwinds before audit's.
    expect(records[1]?.trace.map((entry) => `${entry.phase}:${entry.guard}`).slice(-2)).toEqual([
      'check:egress',
      'settle:billing',
    ]);
  });

  it('does not charge a second run with the same idempotency key', async () => {
    const { chain, invokeRequest, balance } = setup();
    await chain.settle(await chain.run(invokeRequest()), { status: 'succeeded' });
    const replay = await chain.settle(await chain.run(invokeRequest()), { status: 'succeeded' });
    expect(replay.chargedCredits).toBeUndefined();
    expect(await balance()).toBe('9.5');
  });

  it('audits a denial with the trace up to the deciding guard and charges nothing', async () => {
    const { chain, invokeRequest, audit, balance } = setup();
    const run = await chain.run(invokeRequest({ params: { file_name: 'a.pdf' } }));
    expect(run).toMatchObject({
      outcome: 'deny',
      guard: 'schema',
      decision: { schemaPointer: '/params/mime_type' },
    });
    const settlement = await chain.settle(run);
    expect(settlement.outcome).toBe('denied');
    expect(audit.records()).toMatchObject([
      { audit_id: settlement.auditId, outcome: 'denied', reason_code: 'validation_failed' },
    ]);
    expect(
      audit.records()[0]?.trace.map((entry) => `${entry.phase}:${entry.guard}:${entry.outcome}`),
    ).toEqual([
      'check:installation_key:pass',
      'check:required_otps:pass',
      'check:operator_approval:pass',
      'check:scopes:pass',
      'check:schema:deny',
      'settle:billing:pass',
    ]);
    expect(await balance()).toBe('10');
  });

  it('runs a high-risk capability only after an operator approval, exactly once', async () => {
    const { chain, invokeRequest, approvals, audit } = setup();
    const payment = (approvalToken?: string) =>
      invokeRequest({ capability: paymentCapability, params: { amount: 12.5 }, approvalToken });
    const first = await chain.run(payment());
    if (first.outcome !== 'challenge') throw new Error('expected pending_approval');
    const pending = await chain.settle(first);
    expect(pending.outcome).toBe('pending_approval');
    approvals.decide(first.decision.approval.approval_id, 'approved');
    const approved = await chain.run(payment(first.decision.approval.approval_token));
    expect(approved.outcome).toBe('pass');
    await chain.settle(approved, { status: 'succeeded' });
    const reused = await chain.run(payment(first.decision.approval.approval_token));
    expect(reused).toMatchObject({ outcome: 'deny', decision: { code: 'approval_invalid' } });
    const approvalId = first.decision.approval.approval_id;
    expect(audit.records().map((record) => [record.outcome, record.approval_id])).toEqual([
      ['pending_approval', approvalId],
      ['allowed', approvalId],
      ['succeeded', approvalId],
    ]);
  });

  it('dry-runs without creating approvals, consuming limits or charging', async () => {
    const { chain, invokeRequest, approvals, balance, audit } = setup();
    const run = await chain.run(invokeRequest({ capability: paymentCapability, params: { amount: 1 } }), {
      mode: 'dry_run',
    });
    expect(run).toMatchObject({ outcome: 'pass', context: { facts: { approvalRequired: true } } });
    expect(run.context.facts.rateLimit).toBeUndefined();
    const settlement = await chain.settle(run);
    expect(settlement.outcome).toBe('simulated');
    expect(approvals.list()).toHaveLength(0);
    expect(await balance()).toBe('10');
    expect(audit.records().map((record) => [record.action, record.outcome])).toEqual([
      ['capability.dry_run', 'simulated'],
    ]);
  });

  it('answers 412 before onboarding is complete and 401 for a revoked key', async () => {
    const { chain, invokeRequest, installations, keys, keyRecord } = setup();
    installations.update(keyRecord.installation_id, { operator_approval_status: 'pending' });
    expect(await chain.run(invokeRequest())).toMatchObject({
      guard: 'operator_approval',
      decision: { code: 'precondition_failed' },
    });
    keys.revoke(keyRecord.key_id, '2026-03-10T12:00:00.000Z');
    expect(await chain.run(invokeRequest())).toMatchObject({
      guard: 'installation_key',
      decision: { code: 'api_key_revoked' },
    });
  });
});
