// The policy guard alone: kill switch, rate limits, and approvals bound to capability + params.
import { describe, expect, it } from 'vitest';
import { type ChallengeDecision, type GuardDecision, hashParams, policyGuard } from '../src/index.js';
import { context, createWorld, organizationId, paymentCapability, uploadCapability } from './fixtures.js';

function challenged(decision: GuardDecision): ChallengeDecision {
  if (decision.outcome !== 'challenge') throw new Error(`expected a challenge, got ${decision.outcome}`);
  return decision;
}

describe('policy guard', () => {
  // Tight buckets so the rate-limit tests stay short; approval tests use generous ones.
  const setup = (perCapability = 2) => {
    const world = createWorld();
    const guard = policyGuard({
      clock: world.clock,
      approvals: world.approvals,
      wallet: world.wallet,
      rateLimiter: world.rateLimiter,
      rateLimits: {
        perInstallation: { limit: 100, windowSeconds: 60 },
        perCapability: { limit: perCapability, windowSeconds: 60 },
      },
    });
    return { ...world, guard };
  };
  const payment = (params: unknown = { amount: 10 }, approvalToken?: string) =>
    context({ capability: paymentCapability, params, approvalToken });

  it('passes a low-risk capability and reports the rate-limit bucket and params hash', async () => {
    const { guard } = setup();
    expect(await guard.check(context())).toEqual({
      outcome: 'pass',
      facts: {
        wallet: expect.objectContaining({ organization_id: organizationId, balance_credits: '10' }),
        approvalRequired: false,
        paramsHash: hashParams({ file_name: 'a.pdf', mime_type: 'application/pdf' }),
        rateLimit: { policy: 'capability', limit: 2, remaining: 1, reset_seconds: 60, window_seconds: 60 },
      },
    });
  });

  it('answers 429 with retry-after once a capability bucket is empty, and recovers after the window', async () => {
    const { guard, clock } = setup();
    await guard.check(context());
    await guard.check(context());
    clock.advance(15);
    const refused = await guard.check(context());
    expect(refused).toMatchObject({ outcome: 'deny', code: 'rate_limited', retryAfterSeconds: 45 });
    clock.advance(45);
    expect(await guard.check(context())).toMatchObject({ outcome: 'pass' });
  });

  it('does not consume rate limits in dry_run', async () => {
    const { guard } = setup();
    for (let index = 0; index < 5; index += 1) {
      expect(await guard.check(context({}, undefined, 'dry_run'))).toMatchObject({ outcome: 'pass' });
    }
  });

  it('answers 403 forbidden while the kill switch is on', async () => {
    const { guard, wallet } = setup();
    wallet.setPolicy(organizationId, { kill_switch_enabled: true });
    expect(await guard.check(context())).toMatchObject({
      code: 'forbidden',
      details: [{ reason: 'kill_switch' }],
    });
  });

  it('reads only the kill switch port when one is given: no wallet snapshot, same refusal', async () => {
    const world = createWorld();
    const snapshots: string[] = [];
    const guard = policyGuard({
      clock: world.clock,
      approvals: world.approvals,
      wallet: {
        getSnapshot(organization, now) {
          snapshots.push(organization);
          return world.wallet.getSnapshot(organization, now);
        },
      },
      killSwitch: world.wallet,
    });
    const passed = await guard.check(context());
    expect(passed).toMatchObject({ outcome: 'pass' });
    expect(passed.outcome === 'pass' && passed.facts?.wallet).toBe(undefined);
    world.wallet.setPolicy(organizationId, { kill_switch_enabled: true, policy_profile_id: 'policy_1' });
    expect(await guard.check(context())).toMatchObject({
      code: 'forbidden',
      details: [{ reason: 'kill_switch', policy_profile_id: 'policy_1' }],
    });
    expect(snapshots).toEqual([]);
  });

  it('challenges a high-risk invoke with a token bound to capability, version and params', async () => {
    const { guard, approvals } = setup();
    const decision = challenged(await guard.check(payment()));
    expect(decision.approval).toMatchObject({
      status: 'pending',
      capability_id: paymentCapability.id,
      capability_version: '1.0.0',
      params_hash: hashParams({ amount: 10 }),
    });
    expect(decision.approval.approval_token).toMatch(/^agw_ap_[A-Za-z0-9]{40}$/);
    expect(approvals.list()).toHaveLength(1);
    expect(JSON.stringify(approvals.list())).not.toContain(decision.approval.approval_token);
  });

  it('runs an approved token once, for exactly those params', async () => {
    const { guard, approvals } = setup(100);
    const { approval } = challenged(await guard.check(payment()));
    expect(
      challenged(await guard.check(payment({ amount: 10 }, approval.approval_token))).approval.approval_id,
    ).toBe(approval.approval_id);
    approvals.decide(approval.approval_id, 'approved');
    expect(await guard.check(payment({ amount: 11 }, approval.approval_token))).toMatchObject({
      code: 'approval_invalid',
    });
    expect(await guard.check(payment({ amount: 10 }, approval.approval_token))).toMatchObject({
      outcome: 'pass',
      facts: { approvalId: approval.approval_id, approvalRequired: true },
    });
    expect(await guard.check(payment({ amount: 10 }, approval.approval_token))).toMatchObject({
      code: 'approval_invalid',
    });
  });

  it('refuses a denied, expired or unknown token with 403 approval_invalid', async () => {
    const { guard, approvals, clock } = setup(100);
    const first = challenged(await guard.check(payment()));
    approvals.decide(first.approval.approval_id, 'denied');
    expect(await guard.check(payment({ amount: 10 }, first.approval.approval_token))).toMatchObject({
      code: 'approval_invalid',
    });
    const second = challenged(await guard.check(payment({ amount: 5 })));
    approvals.decide(second.approval.approval_id, 'approved');
    clock.advance(86_400);
    expect(await guard.check(payment({ amount: 5 }, second.approval.approval_token))).toMatchObject({
      code: 'approval_invalid',
    });
    expect(await guard.check(payment({ amount: 5 }, 'agw_ap_unknown'))).toMatchObject({
      code: 'approval_invalid',
    });
  });

  it('dedupes: a repeat of the same pending run answers the same approval with a fresh token', async () => {
    const { guard, approvals, clock } = setup(100);
    const first = challenged(await guard.check(payment()));
    const second = challenged(await guard.check(payment()));
    expect(second.approval.approval_id).toBe(first.approval.approval_id);
    expect(second.approval.approval_token).not.toBe(first.approval.approval_token);
    expect(approvals.list()).toHaveLength(1);
    // Other params, a decided approval or an expired one: a new approval.
    challenged(await guard.check(payment({ amount: 11 })));
    expect(approvals.list()).toHaveLength(2);
    approvals.decide(first.approval.approval_id, 'approved');
    const afterDecision = challenged(await guard.check(payment()));
    expect(afterDecision.approval.approval_id).not.toBe(first.approval.approval_id);
    clock.advance(86_400);
    const afterExpiry = challenged(await guard.check(payment()));
    expect(afterExpiry.approval.approval_id).not.toBe(afterDecision.approval.approval_id);
    // Deciding is a state set: the same decision again is a no-op, the opposite one throws.
    approvals.decide(first.approval.approval_id, 'approved');
    expect(() => approvals.decide(first.approval.approval_id, 'denied')).toThrow(/already approved/);
    // Only the newest token of a renewed approval is valid.
    expect(await guard.check(payment({ amount: 10 }, first.approval.approval_token))).toMatchObject({
      code: 'approval_invalid',
    });
  });

  it('in dry_run only reports that an approval would be needed, creating nothing', async () => {
    const { guard, approvals } = setup();
    const decision = await guard.check(
      context({ capability: paymentCapability, params: {} }, undefined, 'dry_run'),
    );
    expect(decision).toMatchObject({ outcome: 'pass', facts: { approvalRequired: true } });
    expect(approvals.list()).toHaveLength(0);
  });

  it('honours approval "always" and custom rules', async () => {
    const world = createWorld();
    const guard = policyGuard({
      clock: world.clock,
      approvals: world.approvals,
      requireApproval: (capability, { request }) =>
        (request.params as { size?: number }).size === 999 ? `${capability.id}: large upload` : undefined,
    });
    const always = { ...uploadCapability, approval: 'always' as const };
    expect((await guard.check(context({ capability: always }))).outcome).toBe('challenge');
    const large = challenged(
      await guard.check(context({ params: { file_name: 'a', mime_type: 'b', size: 999 } })),
    );
    expect(large.approval.reason).toBe('documents.document.upload: large upload');
  });

  it('validates its options at construction', () => {
    const world = createWorld();
    expect(() => policyGuard({ clock: world.clock } as never)).toThrow('ApprovalStore');
    expect(() =>
      policyGuard({
        clock: world.clock,
        approvals: world.approvals,
        rateLimits: { perInstallation: { limit: 1, windowSeconds: 1 } },
      }),
    ).toThrow('rateLimiter');
    expect(() =>
      policyGuard({
        clock: world.clock,
        approvals: world.approvals,
        rateLimiter: world.rateLimiter,
        rateLimits: { perInstallation: { limit: 0, windowSeconds: 1 } },
      }),
    ).toThrow('positive integer');
  });
});
