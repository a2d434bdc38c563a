// The billing guard alone: balance and caps on check, exactly one charge on success in settle.
import { describe, expect, it } from 'vitest';
import { billingGuard, type Guard, type SettleContext } from '../src/index.js';
import { context, createWorld, organizationId, principal, uploadCapability } from './fixtures.js';

function settleContext(overrides: Partial<SettleContext> = {}): SettleContext {
  return {
    ...context({ idempotencyKey: 'idem-0123456789abcdef' }),
    outcome: 'succeeded',
    trace: [],
    settled: {},
    ...overrides,
  };
}

describe('billing guard', () => {
  const setup = () => {
    const world = createWorld(); // balance 10 credits, upload costs 0.5
    const guard: Guard = billingGuard({ wallet: world.wallet, clock: world.clock });
    return { ...world, guard };
  };

  it('passes when balance and caps allow the estimate', async () => {
    const { guard } = setup();
    expect(await guard.check(context())).toEqual({ outcome: 'pass', facts: { estimatedCostCredits: '0.5' } });
  });

  it('refuses with 403 budget_exceeded naming each broken cap', async () => {
    const { guard, wallet } = setup();
    wallet.setPolicy(organizationId, { daily_cap_credits: '1', task_cap_credits: '0.4' });
    await guard.settle?.(
      settleContext({ request: { ...settleContext().request, idempotencyKey: 'first-charge-000001' } }),
    );
    await guard.settle?.(
      settleContext({ request: { ...settleContext().request, idempotencyKey: 'second-charge-00002' } }),
    );
    const decision = await guard.check(context());
    expect(decision).toMatchObject({
      outcome: 'deny',
      code: 'budget_exceeded',
      details: [
        { cap: 'task_cap', limit_credits: '0.4', spent_credits: '0', estimated_cost_credits: '0.5' },
        { cap: 'daily_cap', limit_credits: '1', spent_credits: '1', estimated_cost_credits: '0.5' },
      ],
    });
  });

  it('refuses when the balance is too low, and lets free capabilities through', async () => {
    const { guard, wallet, clock } = setup();
    const empty = billingGuard({ wallet, clock });
    const poor = { ...principal, organization_id: 'another-org' };
    expect(await empty.check(context({}, { principal: poor }))).toMatchObject({
      details: [{ cap: 'balance', limit_credits: '0' }],
    });
    const free = { ...uploadCapability, cost_credits: '0' };
    expect(await guard.check(context({ capability: free }, { principal: poor }))).toMatchObject({
      outcome: 'pass',
    });
  });

  it('reuses the wallet snapshot policy already read instead of reading again', async () => {
    const { wallet, clock } = setup();
    let reads = 0;
    const counting = {
      ...wallet,
      getSnapshot: (...args: Parameters<typeof wallet.getSnapshot>) => {
        reads += 1;
        return wallet.getSnapshot(...args);
      },
    };
    const guard = billingGuard({ wallet: counting, clock });
    const snapshot = await wallet.getSnapshot(organizationId, clock.now());
    const poorer = { ...snapshot, balance_credits: '0.1' };
    expect(await guard.check(context({}, { principal, wallet: poorer }))).toMatchObject({
      code: 'budget_exceeded',
    });
    expect(reads).toBe(0);
  });

  it('charges exactly once per idempotency scope, and only on success', async () => {
    const { guard, wallet } = setup();
    expect(
      await guard.settle?.(settleContext({ outcome: 'failed', code: 'internal_error' })),
    ).toBeUndefined();
    expect(await guard.settle?.(settleContext({ outcome: 'denied' }))).toBeUndefined();
    expect(await guard.settle?.(settleContext())).toEqual({ chargedCredits: '0.5' });
    expect(await guard.settle?.(settleContext())).toBeUndefined();
    const snapshot = await wallet.getSnapshot(organizationId, new Date('2026-03-10T12:00:00.000Z'));
    expect(snapshot.balance_credits).toBe('9.5');
    expect(wallet.ledger(organizationId).filter((entry) => entry.kind === 'charge')).toHaveLength(1);
  });

  it('charges the reported cost, never more than the estimate', async () => {
    const { guard } = setup();
    const cheaper = await guard.settle?.(settleContext({ actualCostCredits: '0.1' }));
    expect(cheaper).toEqual({ chargedCredits: '0.1' });
    const request = { ...settleContext().request, idempotencyKey: 'another-key-000000001' };
    expect(await guard.settle?.(settleContext({ request, actualCostCredits: '7' }))).toEqual({
      chargedCredits: '0.5',
    });
  });
});
