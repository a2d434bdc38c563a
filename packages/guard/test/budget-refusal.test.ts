// A budget refusal that lifts at a known time says when: retry_after_seconds until the cap's window
// resets (UTC day, UTC month, the rolling hour's spend ageing out); one that never lifts by waiting
// (balance, task cap, an estimate above the cap) names no time and stays non-retryable.
import { errorEnvelope } from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import { billingGuard, budgetRefusal, type DenyDecision, type Guard, parseCredits } from '../src/index.js';
import { context, createWorld, organizationId } from './fixtures.js';

// The world's clock reads 2026-03-10T12:00:00Z; the upload capability costs 0.5 credits.
describe('budget refusals', () => {
  const setup = () => {
    const world = createWorld();
    const guard: Guard = billingGuard({ wallet: world.wallet, clock: world.clock });
    const spend = (amount: string, at: string, scope: string) =>
      world.wallet.charge({
        organization_id: organizationId,
        amount_credits: amount,
        idempotency_scope: scope,
        capability_id: 'documents.document.upload',
        occurred_at: at,
      });
    return { ...world, guard, spend };
  };

  it('a daily cap refusal waits until UTC midnight and is retryable', async () => {
    const { guard, wallet, spend } = setup();
    wallet.setPolicy(organizationId, { daily_cap_credits: '1' });
    spend('0.75', '2026-03-10T09:00:00.000Z', 'morning');
    const decision = (await guard.check(context())) as DenyDecision;
    expect(decision).toMatchObject({ outcome: 'deny', code: 'budget_exceeded', retryAfterSeconds: 43_200 });
    const envelope = errorEnvelope(decision.code, {
      auditId: 'a',
      retryAfterSeconds: decision.retryAfterSeconds,
    });
    expect(envelope.error).toMatchObject({ retryable: true, retry_after_seconds: 43_200 });
  });

  it('a monthly cap refusal waits until the first of the next UTC month', async () => {
    const { guard, wallet, spend } = setup();
    wallet.setPolicy(organizationId, { monthly_cap_credits: '2' });
    spend('1.75', '2026-03-02T09:00:00.000Z', 'early-march');
    // 2026-03-10T12:00Z → 2026-04-01T00:00Z: 21.5 days.
    expect(await guard.check(context())).toMatchObject({ retryAfterSeconds: 21.5 * 86_400 });
  });

  it('a burn-rate refusal waits until enough of the last hour’s spend has aged out', async () => {
    const { guard, wallet, spend } = setup();
    wallet.setPolicy(organizationId, { burn_rate_hourly_cap_credits: '1' });
    spend('0.25', '2026-03-10T11:10:00.000Z', 'first');
    spend('0.5', '2026-03-10T11:30:00.000Z', 'second');
    // Spent 0.75 + 0.5 > 1: 0.25 must leave the window, which the 11:10 charge does at 12:10 (+1 ms).
    expect(await guard.check(context())).toMatchObject({ retryAfterSeconds: 601 });
  });

  it('the wait is the latest of the broken caps', async () => {
    const { guard, wallet, spend } = setup();
    wallet.setPolicy(organizationId, { daily_cap_credits: '1', burn_rate_hourly_cap_credits: '1' });
    spend('0.75', '2026-03-10T11:10:00.000Z', 'first');
    expect(await guard.check(context())).toMatchObject({ retryAfterSeconds: 43_200 });
  });

  it('a balance, a task cap or an estimate above the cap never lifts by waiting: no time, not retryable', async () => {
    const { guard, wallet, clock, spend } = setup();
    wallet.setPolicy(organizationId, { daily_cap_credits: '1', task_cap_credits: '0.4' });
    spend('0.75', '2026-03-10T09:00:00.000Z', 'morning');
    const taskCap = (await guard.check(context())) as DenyDecision;
    expect(taskCap.code).toBe('budget_exceeded');
    expect(taskCap.retryAfterSeconds).toBeUndefined();
    expect(errorEnvelope(taskCap.code, { auditId: 'a' }).error.retryable).toBe(false);

    wallet.setPolicy(organizationId, { daily_cap_credits: '0.25', task_cap_credits: null });
    const aboveCap = await budgetRefusal({ wallet, clock }, organizationId, parseCredits('0.5'));
    expect(aboveCap?.code).toBe('budget_exceeded');
    expect(aboveCap?.retryAfterSeconds).toBeUndefined();
    wallet.setPolicy(organizationId, { daily_cap_credits: null });
    const balance = await budgetRefusal({ wallet, clock }, organizationId, parseCredits('20'));
    expect(balance?.details).toMatchObject([{ cap: 'balance' }]);
    expect(balance?.retryAfterSeconds).toBeUndefined();
  });
});
