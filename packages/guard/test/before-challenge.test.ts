// The admit option `beforeChallenge`: the policy guard asks it right before it creates an approval
// challenge, so a run the capability's own rules refuse is answered at once and no operator is asked.
import { describe, expect, it } from 'vitest';
import { type BeforeChallenge, createStandardChain, deny, type GuardRequest } from '../src/index.js';
import { createWorld, paymentCapability, uploadCapability } from './fixtures.js';

function setup() {
  const world = createWorld();
  const chain = createStandardChain({
    ...world,
    rateLimits: { perInstallation: { limit: 50, windowSeconds: 60 } },
  });
  const payment = (approvalToken?: string): GuardRequest => ({
    authorization: `Bearer ${world.token}`,
    capability: paymentCapability,
    params: { amount: 500 },
    idempotencyKey: 'idem-0000000000000001',
    ...(approvalToken === undefined ? {} : { approvalToken }),
  });
  const overBalance: BeforeChallenge = () =>
    deny('validation_failed', '/params/amount exceeds the open balance of 378.27 EUR', {
      hint: 'Record at most 378.27 EUR.',
      schemaPointer: '/params/amount',
      details: [
        { schema_pointer: '/params/amount', keyword: 'billing', message: 'exceeds the open balance' },
      ],
    });
  return { ...world, chain, payment, overBalance };
}

describe('beforeChallenge', () => {
  it('answers its denial instead of a pending approval: no approval is created, the denial is audited', async () => {
    const { chain, payment, overBalance, approvals, audit } = setup();
    const asked: unknown[] = [];
    const admission = await chain.admit(payment(), {
      beforeChallenge: (facts, request) => {
        asked.push([facts.principal?.installation_id, request.params]);
        return overBalance(facts, request);
      },
    });
    expect(admission).toMatchObject({
      outcome: 'deny',
      guard: 'policy',
      decision: {
        code: 'validation_failed',
        schemaPointer: '/params/amount',
        hint: 'Record at most 378.27 EUR.',
      },
    });
    expect(asked).toEqual([[expect.any(String), { amount: 500 }]]);
    expect(approvals.list()).toHaveLength(0);
    expect(audit.records().map((record) => [record.outcome, record.reason_code])).toEqual([
      ['denied', 'validation_failed'],
    ]);
  });

  it('lets the challenge be created when it finds nothing', async () => {
    const { chain, payment, approvals } = setup();
    const admission = await chain.admit(payment(), { beforeChallenge: () => undefined });
    expect(admission.outcome).toBe('challenge');
    expect(approvals.list()).toHaveLength(1);
  });

  it('is not asked for a run that needs no approval, nor when an approval token is redeemed', async () => {
    const { chain, payment, overBalance, approvals, token } = setup();
    let asked = 0;
    const counting: BeforeChallenge = (facts, request) => {
      asked += 1;
      return asked > 1 ? overBalance(facts, request) : undefined;
    };
    const low = await chain.admit(
      {
        authorization: `Bearer ${token}`,
        capability: uploadCapability,
        params: { file_name: 'a.pdf', mime_type: 'application/pdf' },
      },
      { beforeChallenge: counting },
    );
    expect(low.outcome).toBe('admitted');
    expect(asked).toBe(0);
    const first = await chain.admit(payment(), { beforeChallenge: counting });
    if (first.outcome !== 'challenge') throw new Error('expected pending_approval');
    approvals.decide(first.decision.approval.approval_id, 'approved');
    const redeemed = await chain.admit(payment(first.decision.approval.approval_token), {
      beforeChallenge: counting,
    });
    expect(redeemed.outcome).toBe('admitted');
    expect(asked).toBe(1);
  });

  it('fails closed when it throws', async () => {
    const { chain, payment, approvals } = setup();
    const admission = await chain.admit(payment(), {
      beforeChallenge: () => Promise.reject(new Error('database gone')),
    });
    expect(admission).toMatchObject({ outcome: 'fault', guard: 'policy' });
    expect(approvals.list()).toHaveLength(0);
  });
});
