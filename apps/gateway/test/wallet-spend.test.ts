import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rollUpCharges } from '../src/ports/wallet-rollup.js';
import { createKnexWalletStore } from '../src/ports/wallet-store.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { unrolledCharges } from './helpers/ledger.js';

// The balance and spend windows billing judges caps against: a charge is one ledger row, counted by every
// snapshot at once and folded into the balance and the minute/day buckets by the roll-up.
const gateway = useGateway();

describe('wallet spend windows', () => {
  const setup = async () => {
    const { organizationId } = await approvedInstallation(gateway);
    const wallet = createKnexWalletStore(gateway.knex);
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

    const now = new Date('2026-11-23T11:29:30.000Z');
    const snapshot = await wallet.getSnapshot(organizationId, now);
    expect(snapshot.spent).toEqual({ hour_credits: '1.75', today_credits: '3.75', month_credits: '7.75' });
    // Each charge lowers the balance once.
    expect(Number(before.balance_credits) - Number(snapshot.balance_credits)).toBeCloseTo(15.75, 6);
    // Rolled up, the same figures come from the aggregates; a second roll-up finds nothing.
    expect(await rollUpCharges(gateway.knex)).toBeGreaterThanOrEqual(5);
    expect(await unrolledCharges(gateway.knex, organizationId)).toEqual([]);
    expect(await wallet.getSnapshot(organizationId, now)).toEqual(snapshot);
    expect(await rollUpCharges(gateway.knex)).toBe(0);
    expect(await wallet.getSnapshot(organizationId, now)).toEqual(snapshot);
    const ledger = await gateway
      .knex('wallet_ledger')
      .where({ organization_id: organizationId, kind: 'charge' });
    expect(ledger).toHaveLength(5);
  });

  it('counts a whole minute at the start of the hour window (a cap refuses early, never late)', async () => {
    const { organizationId, wallet, charge } = await setup();
    await charge('1', '2026-11-23T10:00:05.000Z');
    await rollUpCharges(gateway.knex);
    // 60 minutes and 20 seconds later: the charge is in the minute bucket that straddles the edge.
    const edge = await wallet.getSnapshot(organizationId, new Date('2026-11-23T11:00:25.000Z'));
    expect(edge.spent.hour_credits).toBe('1');
    const later = await wallet.getSnapshot(organizationId, new Date('2026-11-23T11:01:00.000Z'));
    expect(later.spent.hour_credits).toBe('0');
    expect(later.spent.today_credits).toBe('1');
  });

  it('after a roll-up, a later snapshot drops what left its windows: the hour, the day, the month', async () => {
    const { organizationId, wallet, charge } = await setup();
    const now = new Date();
    await charge('1', now.toISOString());
    await rollUpCharges(gateway.knex);
    // The roll-up keeps the sums on the wallets row, for the windows it saw.
    const row = await gateway.knex('wallets').where({ organization_id: organizationId }).first();
    expect(Number(row.spent_hour)).toBe(1);

    const spent = async (at: Date) => (await wallet.getSnapshot(organizationId, at)).spent;
    expect(await spent(now)).toEqual({ hour_credits: '1', today_credits: '1', month_credits: '1' });
    const twoHoursLater = new Date(now.getTime() + 2 * 3_600_000);
    expect((await spent(twoHoursLater)).hour_credits).toBe('0');
    const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 12));
    const sameMonth = tomorrow.getUTCMonth() === now.getUTCMonth() ? '1' : '0';
    expect(await spent(tomorrow)).toEqual({
      hour_credits: '0',
      today_credits: '0',
      month_credits: sameMonth,
    });
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 2));
    expect(await spent(nextMonth)).toEqual({ hour_credits: '0', today_credits: '0', month_credits: '0' });
  });

  it('prunes minute buckets older than two hours at the next roll-up; day buckets stay', async () => {
    const { organizationId, charge } = await setup();
    const threeHoursAgo = new Date(Date.now() - 3 * 3_600_000);
    await charge('1', threeHoursAgo.toISOString());
    await rollUpCharges(gateway.knex);
    await charge('1', new Date().toISOString());
    await rollUpCharges(gateway.knex);
    const buckets = await gateway.knex('wallet_spend').where({ organization_id: organizationId });
    const minutes = buckets.filter((row) => row.bucket === 'minute');
    expect(minutes).toHaveLength(1);
    expect(new Date(minutes[0]?.starts_at).getTime()).toBeGreaterThan(Date.now() - 3_600_000);
    const days = buckets.filter((row) => row.bucket === 'day');
    expect(days.reduce((sum, row) => sum + Number(row.amount), 0)).toBe(2);
  });

  it('charges committed while roll-ups run concurrently are each counted exactly once', async () => {
    const { organizationId, wallet, charge } = await setup();
    const before = await wallet.getSnapshot(organizationId, new Date());
    const at = new Date().toISOString();
    await Promise.all([
      ...Array.from({ length: 40 }, () => charge('0.25', at)),
      ...Array.from({ length: 5 }, () => rollUpCharges(gateway.knex)),
    ]);
    const during = await wallet.getSnapshot(organizationId, new Date());
    await rollUpCharges(gateway.knex);
    const after = await wallet.getSnapshot(organizationId, new Date());
    for (const snapshot of [during, after]) {
      expect(Number(before.balance_credits) - Number(snapshot.balance_credits)).toBeCloseTo(10, 6);
      expect(Number(snapshot.spent.hour_credits) - Number(before.spent.hour_credits)).toBeCloseTo(10, 6);
      expect(Number(snapshot.spent.month_credits) - Number(before.spent.month_credits)).toBeCloseTo(10, 6);
    }
    const row = await gateway.knex('wallets').where({ organization_id: organizationId }).first();
    expect(Number(row.balance)).toBeCloseTo(Number(after.balance_credits), 6);
  });
});
