import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKnexExecutor } from '../src/ports/executor.js';
import { createKnexWalletStore } from '../src/ports/wallet-store.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

// The spend windows billing judges caps against, kept in minute and day buckets by every charge.
const gateway = useGateway();

describe('wallet spend windows', () => {
  const setup = async () => {
    const { organizationId } = await approvedInstallation(gateway);
    const wallet = createKnexWalletStore(createKnexExecutor(gateway.knex));
    const charge = (amount: string, at: string, scope: string = randomUUID()) =>
      wallet.charge({
        organization_id: organizationId,
        amount_credits: amount,
        idempotency_scope: scope,
        capability_id: 'demo.paid',
        occurred_at: at,
      });
    return { organizationId, wallet, charge };
  };

  it('sums the last 60 minutes, the UTC day and the UTC month; a repeated scope is charged once', async () => {
    const { organizationId, wallet, charge } = await setup();
    const before = await wallet.getSnapshot(organizationId, new Date());
    expect(await charge('1.5', '2026-11-23T10:30:10.000Z', 'scope-a')).toEqual({ charged: true });
    expect(await charge('1.5', '2026-11-23T10:30:10.000Z', 'scope-a')).toEqual({ charged: false });
    await charge('2', '2026-11-23T09:10:00.000Z'); // 80 minutes before "now": today, not this hour
    await charge('4', '2026-11-22T23:59:59.000Z'); // yesterday: this month only
    await charge('8', '2026-10-31T12:00:00.000Z'); // last month: nowhere
    await charge('0.25', '2026-11-23T10:29:59.000Z');

    const snapshot = await wallet.getSnapshot(organizationId, new Date('2026-11-23T11:29:30.000Z'));
    expect(snapshot.spent).toEqual({ hour_credits: '1.75', today_credits: '3.75', month_credits: '7.75' });
    // Each charge lowers the balance once.
    expect(Number(before.balance_credits) - Number(snapshot.balance_credits)).toBeCloseTo(15.75, 6);
    const ledger = await gateway
      .knex('wallet_ledger')
      .where({ organization_id: organizationId, kind: 'charge' });
    expect(ledger).toHaveLength(5);
  });

  it('counts a whole minute at the start of the hour window (a cap refuses early, never late)', async () => {
    const { organizationId, wallet, charge } = await setup();
    await charge('1', '2026-11-23T10:00:05.000Z');
    // 60 minutes and 20 seconds later: the charge is in the minute bucket that straddles the edge.
    const edge = await wallet.getSnapshot(organizationId, new Date('2026-11-23T11:00:25.000Z'));
    expect(edge.spent.hour_credits).toBe('1');
    const later = await wallet.getSnapshot(organizationId, new Date('2026-11-23T11:01:00.000Z'));
    expect(later.spent.hour_credits).toBe('0');
    expect(later.spent.today_credits).toBe('1');
  });

  it('prunes minute buckets older than two hours; day buckets stay', async () => {
    const { organizationId, charge } = await setup();
    await charge('1', '2026-11-23T06:00:00.000Z');
    await charge('1', '2026-11-23T09:00:00.000Z');
    const buckets = await gateway
      .knex('wallet_spend')
      .where({ organization_id: organizationId })
      .orderBy(['bucket', 'starts_at'])
      .select('bucket');
    expect(buckets.map((row) => row.bucket)).toEqual(['day', 'minute']);
  });
});
