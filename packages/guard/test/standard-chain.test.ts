// The nine built-in guards together on the in-memory ports: the paths an agent notices.
import { describe, expect, it } from 'vitest';
import { createStandardChain, type GuardRequest } from '../src/index.js';
import { createWorld, organizationId, paymentCapability, uploadCapability } from './fixtures.js';

function setup(options: { deferAuditDecision?: boolean } = {}) {
  const world = createWorld();
  const build = () =>
    createStandardChain({
      ...world,
      rateLimits: { perInstallation: { limit: 50, windowSeconds: 60 } },
      ...options,
    });
  const chain = build();
  const invokeRequest = (overrides: Partial<GuardRequest> = {}): GuardRequest => ({
    authorization: `Bearer ${world.token}`,
    capability: uploadCapability,
    params: { file_name: 'a.pdf', mime_type: 'application/pdf' },
    idempotencyKey: 'idem-0000000000000001',
    ...overrides,
  });
  const balance = async () =>
    (await world.wallet.getSnapshot(organizationId, world.clock.now())).balance_credits;
  /** Admits a request that must pass guards 1–6. */
  const admit = async (request: GuardRequest) => {
    const admission = await chain.admit(request);
    if (admission.outcome !== 'admitted') throw new Error(`expected an admitted run: ${admission.outcome}`);
    return admission;
  };
  return { ...world, build, chain, invokeRequest, balance, admit };
}

describe('the standard chain', () => {
  it('passes all nine guards, then settles: one charge, an allowed and a succeeded audit record', async () => {
    const { chain, invokeRequest, audit, balance, admit } = setup();
    const admitted = await admit(invokeRequest());
    // The principal is typed and present: installation_key always runs first in the standard chain.
    expect(admitted.principal.organization_id).toBe(organizationId);
    const executed = await admitted.execute(({ principal }) => principal.installation_id);
    expect(executed.settlement.trace.filter((entry) => entry.phase === 'check').map((e) => e.guard)).toEqual(
      chain.names,
    );
    expect(executed).toMatchObject({
      outcome: 'succeeded',
      value: admitted.principal.installation_id,
      settlement: { outcome: 'succeeded', chargedCredits: '0.5' },
    });
    expect(await balance()).toBe('9.5');
    const records = audit.records();
    expect(records.map((record) => record.outcome)).toEqual(['allowed', 'succeeded']);
    expect(records[1]).toMatchObject({
      audit_id: executed.settlement.auditId,
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
    const { invokeRequest, balance, admit } = setup();
    await (await admit(invokeRequest())).execute(() => 'first');
    const replay = await (await admit(invokeRequest())).execute(() => 'second');
    expect(replay.settlement.chargedCredits).toBeUndefined();
    expect(await balance()).toBe('9.5');
  });

  it('audits a denial with the trace up to the deciding guard and charges nothing', async () => {
    const { chain, invokeRequest, audit, balance } = setup();
    const refusal = await chain.admit(invokeRequest({ params: { file_name: 'a.pdf' } }));
    expect(refusal).toMatchObject({
      outcome: 'deny',
      guard: 'schema',
      decision: { schemaPointer: '/params/mime_type' },
      settlement: { outcome: 'denied' },
    });
    expect(audit.records()).toMatchObject([
      {
        audit_id: refusal.outcome === 'deny' && refusal.settlement.auditId,
        outcome: 'denied',
        reason_code: 'validation_failed',
      },
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
    const { chain, invokeRequest, approvals, audit, admit } = setup();
    const payment = (approvalToken?: string) =>
      invokeRequest({ capability: paymentCapability, params: { amount: 12.5 }, approvalToken });
    const first = await chain.admit(payment());
    if (first.outcome !== 'challenge') throw new Error('expected pending_approval');
    expect(first.settlement.outcome).toBe('pending_approval');
    approvals.decide(first.decision.approval.approval_id, 'approved');
    const approved = await admit(payment(first.decision.approval.approval_token));
    await approved.execute(() => 'paid');
    const reused = await chain.admit(payment(first.decision.approval.approval_token));
    expect(reused).toMatchObject({ outcome: 'deny', decision: { code: 'approval_invalid' } });
    const approvalId = first.decision.approval.approval_id;
    expect(audit.records().map((record) => [record.outcome, record.approval_id])).toEqual([
      ['pending_approval', approvalId],
      ['allowed', approvalId],
      ['succeeded', approvalId],
      ['denied', null],
    ]);
  });

  it('dry-runs without creating approvals, consuming limits or charging', async () => {
    const { chain, invokeRequest, approvals, balance, audit } = setup();
    const simulated = await chain.dryRun(
      invokeRequest({ capability: paymentCapability, params: { amount: 1 } }),
    );
    expect(simulated).toMatchObject({
      outcome: 'simulated',
      facts: { approvalRequired: true },
      settlement: { outcome: 'simulated' },
    });
    expect(simulated.facts.rateLimit).toBeUndefined();
    expect(approvals.list()).toHaveLength(0);
    expect(await balance()).toBe('10');
    expect(audit.records().map((record) => [record.action, record.outcome])).toEqual([
      ['capability.dry_run', 'simulated'],
    ]);
  });

  it('defers a long-running run with a deferred audit decision: written once, charged once on completion', async () => {
    const { build, invokeRequest, audit, balance, admit } = setup({ deferAuditDecision: true });
    const deferral = await (await admit(invokeRequest())).defer();
    if (deferral.outcome !== 'accepted') throw new Error('expected an accepted run');
    // One record for the decision and the acceptance: it takes the decision's id.
    expect(audit.records().map((record) => record.outcome)).toEqual(['accepted']);
    expect(await balance()).toBe('10');
    // At rest it holds no private record of the audit guard (it was written with `accepted`).
    const stored = JSON.parse(JSON.stringify(deferral.run));
    expect(stored.facts.deferredDecision).toBeUndefined();
    const executed = await build()
      .restore(stored)
      .execute(({ principal }) => principal.key_id);
    expect(executed).toMatchObject({ outcome: 'succeeded', settlement: { chargedCredits: '0.5' } });
    expect(await balance()).toBe('9.5');
    const records = audit.records();
    expect(records.map((record) => record.outcome)).toEqual(['accepted', 'succeeded']);
    expect(records[1]?.decision_audit_id).toBe(records[0]?.audit_id);
  });

  it('answers 412 before onboarding is complete and 401 for a revoked key', async () => {
    const { chain, invokeRequest, installations, keys, keyRecord } = setup();
    installations.update(keyRecord.installation_id, { operator_approval_status: 'pending' });
    expect(await chain.admit(invokeRequest())).toMatchObject({
      guard: 'operator_approval',
      decision: { code: 'precondition_failed' },
    });
    keys.revoke(keyRecord.key_id, '2026-03-10T12:00:00.000Z');
    expect(await chain.admit(invokeRequest())).toMatchObject({
      guard: 'installation_key',
      decision: { code: 'api_key_revoked' },
    });
  });
});
