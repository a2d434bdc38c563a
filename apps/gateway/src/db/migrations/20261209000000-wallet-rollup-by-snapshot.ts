import type { Knex } from 'knex';

/**
 * The roll-up's mark is the snapshot it last rolled up under, not a transaction id (issue 31; as the audit
 * sealer's, src/db/migrations/20261202010000-audit-seal-snapshot.ts).
 *
 * `20261208000000_wallet_rollup_by_transaction` folded in the ledger rows below the xmin of the
 * roll-up's snapshot: a charge waited for every transaction older than it to end. Transaction ids are
 * shared by the whole cluster, so one long transaction anywhere — another database's, an operator's
 * open psql session — stopped every organization's roll-up, and each paid invoke's snapshot summed more
 * and more unrolled charges. Now a charge is rolled up by the first roll-up whose snapshot sees it
 * committed; the rows not rolled up yet are those not visible in the mark (`txid` at or above its xmax, or
 * among the transactions in progress when it was taken). An open transaction delays only its own rows.
 *
 * A mark `M` (every txid below `M` rolled up) is the snapshot `M:M:`, in which exactly the transactions
 * below `M` are visible, so the rows rolled up stay rolled up.
 */
export const walletRollupBySnapshot = {
  name: '20261209000000_wallet_rollup_by_snapshot',
  async up(knex: Knex): Promise<void> {
    for (const table of ['wallet_rollup_mark', 'wallets']) {
      await knex.raw(`alter table ${table} alter column rolled_through drop default`);
      await knex.raw(`
        alter table ${table} alter column rolled_through type pg_snapshot
        using (rolled_through::text || ':' || rolled_through::text || ':')::pg_snapshot`);
    }
    await knex.raw(`alter table wallets alter column rolled_through set default '1:1:'`);
  },
  async down(knex: Knex): Promise<void> {
    // The previous scheme needs the rows not rolled up to be those at or past a transaction id. Rows not
    // visible in the mark lie at or past its xmax, or belong to a transaction in progress when it was
    // taken; those below the xmax move to it. An organization's charges not visible in its own mark are
    // not visible in the (later) global one either — a roll-up that folded one in would have moved the
    // organization's mark — so each organization's rows at or past its mark's xmax are exactly its
    // charges not rolled up yet, and the global mark's xmax is where the roll-up goes on.
    await knex.raw(`
      update wallet_ledger l set txid = pg_snapshot_xmax(m.rolled_through)
      from wallet_rollup_mark m
      where l.txid <> '0' and l.txid < pg_snapshot_xmax(m.rolled_through)
        and not pg_visible_in_snapshot(l.txid, m.rolled_through)`);
    for (const table of ['wallet_rollup_mark', 'wallets']) {
      await knex.raw(`alter table ${table} alter column rolled_through drop default`);
      await knex.raw(`
        alter table ${table} alter column rolled_through type xid8
        using pg_snapshot_xmax(rolled_through)`);
    }
    await knex.raw(`alter table wallets alter column rolled_through set default '1'`);
  },
};
