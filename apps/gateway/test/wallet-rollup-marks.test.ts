// How the charge roll-up finds the charges to fold in (src/ports/wallet-rollup.ts): those its last
// snapshot did not see, by the transaction that wrote them, with no row updated; a database upgraded with
// charges still marked "not rolled up" folds them in once, and taken back marks them so again; a charge
// whose transaction is still open when the roll-up runs is folded in by a later one, and the others at
// once; a backlog is folded in by batches of whole transactions — every snapshot counts each charge
// exactly once throughout.
import { randomUUID } from 'node:crypto';
import { createKnexWalletStore, rollUpCharges, runMigrations } from '@agw/gateway';
import { describe, expect, it } from 'vitest';
import { gate } from './helpers/gate.js';
import { unrolledCharges } from './helpers/ledger.js';
import { undoMigration, useMigratedDatabase } from './helpers/migrated-database.js';

const BY_TRANSACTION = '20261208000000_wallet_rollup_by_transaction';
const BY_SNAPSHOT = '20261209000000_wallet_rollup_by_snapshot';

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

describe('the charge roll-up by snapshot', () => {
  it('folds in the charges an upgraded database still had not rolled up, once, and nothing else', async () => {
    await undoMigration(db.knex, BY_SNAPSHOT);
    await undoMigration(db.knex, BY_TRANSACTION);
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

    expect((await runMigrations(db.knex)).applied).toEqual([BY_TRANSACTION, BY_SNAPSHOT]);
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
    await undoMigration(db.knex, BY_SNAPSHOT);
    await undoMigration(db.knex, BY_TRANSACTION);
    const unrolledBefore = await db
      .knex('wallet_ledger')
      .where({ organization_id: organizationId, kind: 'charge', rolled_up: false })
      .pluck('idempotency_scope');
    expect(unrolledBefore).toEqual([late.idempotency_scope]);
    expect((await runMigrations(db.knex)).applied).toEqual([BY_TRANSACTION, BY_SNAPSHOT]);
    expect(await balanceOf(organizationId)).toBe('101.5');
    expect(await rollUpCharges(db.knex)).toBe(1);
    expect(await storedBalance(organizationId)).toBe(101.5);
  });

  it('folds a backlog in by batches of whole transactions, each charge once', async () => {
    const organizationId = await organization();
    await db.knex('wallets').insert({ organization_id: organizationId, balance: '5000' });
    // 1 200 charges in one transaction — more than a batch — then 300 in another.
    await db.knex('wallet_ledger').insert(Array.from({ length: 1200 }, () => charge(organizationId, '1')));
    await db.knex('wallet_ledger').insert(Array.from({ length: 300 }, () => charge(organizationId, '2')));
    expect(await balanceOf(organizationId)).toBe('3200');

    expect(await rollUpCharges(db.knex)).toBe(1500);
    expect(await unrolledCharges(db.knex, organizationId)).toEqual([]);
    expect(await storedBalance(organizationId)).toBe(3200);
    expect(await balanceOf(organizationId)).toBe('3200');
    expect(await rollUpCharges(db.knex)).toBe(0);
  });

  it('reads a mark whose in-progress ids span many transactions id by id, with the same result', async () => {
    const organizationId = await organization();
    await db.knex('wallets').insert({ organization_id: organizationId, balance: '100' });
    const txids: string[] = [];
    for (const amount of ['1', '2', '4']) {
      const [row] = await db
        .knex('wallet_ledger')
        .insert(charge(organizationId, amount))
        .returning(db.knex.raw('txid::text'));
      txids.push((row as { txid: string }).txid);
    }
    const [first, second, third] = txids.map(BigInt) as [bigint, bigint, bigint];
    // Marks under which the first charge is rolled up and the other two are not: the second and third
    // in progress when it was taken. Narrow (xmax just past them) and wide (xmax 1 500 ids on, as when a
    // transaction stayed open while others committed), so each of ledgerRowsNotIn's branches is read.
    const mark = (xmax: bigint) => `${first}:${xmax}:${second},${third}`;
    for (const xmax of [third + 1n, third + 1500n]) {
      await db
        .knex('wallets')
        .where({ organization_id: organizationId })
        .update({ rolled_through: mark(xmax) });
      expect(await unrolledCharges(db.knex, organizationId)).toHaveLength(2);
      expect(await balanceOf(organizationId)).toBe('94');
    }
    // The roll-up reads its own (wide) mark the same way: it folds in those two, and only those.
    await db.knex('wallet_rollup_mark').update({ rolled_through: mark(third + 1500n) });
    expect(await rollUpCharges(db.knex)).toBe(2);
    expect(await storedBalance(organizationId)).toBe(94);
    expect(await unrolledCharges(db.knex, organizationId)).toEqual([]);
    expect(await balanceOf(organizationId)).toBe('94');
  });

  // PostgreSQL only: on PGlite the one session is the only transaction, so none is open beside another.
  it.runIf(process.env.DATABASE_URL)(
    "folds in the charges of ended transactions at once and an open one's once it commits, each once",
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

      // The roll-up folds in the fast charge; the slow one's transaction is still open.
      expect(await rollUpCharges(db.knex, { skipIfBusy: true })).toBe(1);
      expect(await storedBalance(organizationId)).toBe(49);
      expect(await unrolledCharges(db.knex, organizationId)).toEqual([]);
      expect(await balanceOf(organizationId)).toBe('49');

      committing.open();
      await slow;
      expect(await unrolledCharges(db.knex, organizationId)).toEqual([slowCharge.idempotency_scope]);
      expect(await balanceOf(organizationId)).toBe('45');
      // Taken back now, the slow charge — below the mark's xmax, but not in it — is still not rolled up.
      await undoMigration(db.knex, BY_SNAPSHOT);
      const unrolledBefore = await db.knex.raw(
        `select l.idempotency_scope from wallet_ledger l join wallets w using (organization_id)
         where l.organization_id = ? and l.kind = 'charge' and l.txid >= w.rolled_through`,
        [organizationId],
      );
      expect(unrolledBefore.rows.map((row: { idempotency_scope: string }) => row.idempotency_scope)).toEqual([
        slowCharge.idempotency_scope,
      ]);
      expect((await runMigrations(db.knex)).applied).toEqual([BY_SNAPSHOT]);
      expect(await balanceOf(organizationId)).toBe('45');

      expect(await rollUpCharges(db.knex)).toBe(1);
      expect(await unrolledCharges(db.knex, organizationId)).toEqual([]);
      expect(await storedBalance(organizationId)).toBe(45);
      expect(await balanceOf(organizationId)).toBe('45');
    },
  );
});
