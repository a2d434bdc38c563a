// How the charge roll-up finds the charges to fold in (src/ports/wallet-rollup.ts): by the transaction
// that wrote them, with no row updated; a database upgraded with charges still marked "not rolled up"
// folds them in once; a charge whose transaction is still open when the roll-up runs is folded in by a
// later one — every snapshot counts each charge exactly once throughout.
import { randomUUID } from 'node:crypto';
import { createKnexWalletStore, rollUpCharges, runMigrations } from '@agw/gateway';
import { describe, expect, it } from 'vitest';
import { gate } from './helpers/gate.js';
import { unrolledCharges } from './helpers/ledger.js';
import { undoMigration, useMigratedDatabase } from './helpers/migrated-database.js';

const MIGRATION = '20261208000000_wallet_rollup_by_transaction';

const db = useMigratedDatabase();

async function organization(): Promise<string> {
  const id = randomUUID();
  await db.knex('organizations').insert({ id, name: `Rollup ${id}`, short_id: id.slice(0, 12) });
  return id;
}

function charge(organizationId: string, amount: string, extra: Record<string, unknown> = {}) {
  return {
    organization_id: organizationId,
    amount,
    kind: 'charge',
    idempotency_scope: `test:${randomUUID()}`,
    capability_id: 'demo.paid',
    occurred_at: new Date(),
    ...extra,
  };
}

const balanceOf = async (organizationId: string) =>
  (await createKnexWalletStore(db.knex).getSnapshot(organizationId, new Date())).balance_credits;

const storedBalance = async (organizationId: string) =>
  Number((await db.knex('wallets').where({ organization_id: organizationId }).first('balance'))?.balance);

describe('the charge roll-up by transaction', () => {
  it('folds in the charges an upgraded database still had not rolled up, once, and nothing else', async () => {
    await undoMigration(db.knex, MIGRATION);
    const organizationId = await organization();
    // The old scheme: a balance with a rolled-up charge and a credit in it, and one charge not yet.
    await db.knex('wallets').insert({ organization_id: organizationId, balance: '105' });
    await db.knex('wallet_ledger').insert(charge(organizationId, '5', { rolled_up: true }));
    await db.knex('wallet_ledger').insert({
      organization_id: organizationId,
      amount: '10',
      kind: 'credit',
      idempotency_scope: `credit:${randomUUID()}`,
    });
    const pending = charge(organizationId, '2', { rolled_up: false });
    await db.knex('wallet_ledger').insert(pending);

    expect((await runMigrations(db.knex)).applied).toEqual([MIGRATION]);
    expect(await unrolledCharges(db.knex, organizationId)).toEqual([pending.idempotency_scope]);
    expect(await balanceOf(organizationId)).toBe('103');

    expect(await rollUpCharges(db.knex)).toBe(1);
    expect(await unrolledCharges(db.knex, organizationId)).toEqual([]);
    expect(await storedBalance(organizationId)).toBe(103);
    expect(await balanceOf(organizationId)).toBe('103');
    // A charge written now is counted at once and folded in by the next roll-up, and only then.
    await db.knex('wallet_ledger').insert(charge(organizationId, '1'));
    expect(await balanceOf(organizationId)).toBe('102');
    expect(await rollUpCharges(db.knex)).toBe(1);
    expect(await rollUpCharges(db.knex)).toBe(0);
    expect(await storedBalance(organizationId)).toBe(102);
    expect(await balanceOf(organizationId)).toBe('102');

    // Taken back (a downgrade), the charge written since and not rolled up is marked so again.
    const late = charge(organizationId, '0.5');
    await db.knex('wallet_ledger').insert(late);
    await undoMigration(db.knex, MIGRATION);
    const unrolledBefore = await db
      .knex('wallet_ledger')
      .where({ organization_id: organizationId, kind: 'charge', rolled_up: false })
      .pluck('idempotency_scope');
    expect(unrolledBefore).toEqual([late.idempotency_scope]);
    expect((await runMigrations(db.knex)).applied).toEqual([MIGRATION]);
    expect(await balanceOf(organizationId)).toBe('101.5');
    expect(await rollUpCharges(db.knex)).toBe(1);
    expect(await storedBalance(organizationId)).toBe(101.5);
  });

  // PostgreSQL only: on PGlite the one session is the only transaction, so none is open beside another.
  it.runIf(process.env.DATABASE_URL)(
    'leaves a charge whose transaction is open to a later roll-up, and counts it exactly once',
    async () => {
      const organizationId = await organization();
      await db.knex('wallets').insert({ organization_id: organizationId, balance: '50' });
      const committing = gate();
      const inserted = gate();
      const slowCharge = charge(organizationId, '4');
      const slow = db.knex.transaction(async (trx) => {
        await trx('wallet_ledger').insert(slowCharge);
        inserted.open();
        await committing.opened;
      });
      await inserted.opened;
      // A charge that commits after the slow one began: its transaction id is higher.
      const fastCharge = charge(organizationId, '1');
      await db.knex('wallet_ledger').insert(fastCharge);
      expect(await balanceOf(organizationId)).toBe('49');

      // The periodic roll-up folds in neither: a transaction older than the fast charge is still open.
      expect(await rollUpCharges(db.knex, { skipIfBusy: true })).toBe(0);
      expect(await unrolledCharges(db.knex, organizationId)).toEqual([fastCharge.idempotency_scope]);
      expect(await storedBalance(organizationId)).toBe(50);

      // A direct call waits for the transactions running when it began, then folds in both.
      let settled = false;
      const direct = rollUpCharges(db.knex).then((count) => {
        settled = true;
        return count;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      committing.open();
      await slow;
      expect(await balanceOf(organizationId)).toBe('45');
      expect(await direct).toBe(2);
      expect(await unrolledCharges(db.knex, organizationId)).toEqual([]);
      expect(await storedBalance(organizationId)).toBe(45);
      expect(await balanceOf(organizationId)).toBe('45');
    },
  );
});
