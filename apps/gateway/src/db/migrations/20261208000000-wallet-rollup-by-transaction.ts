import type { Knex } from 'knex';

/**
 * The roll-up (src/ports/wallet-rollup.ts) marked every charge it folded in `rolled_up = true`: an
 * UPDATE of each ledger row, written a second time with both index entries and left behind for vacuum,
 * and the snapshot's index range of "not rolled up" rows full of their dead versions. Now a charge is
 * written once and never touched again. Each row carries `txid`, the id of the transaction that inserted
 * it (as `audit_events` does for the sealer); the roll-up folds in the rows whose transaction ended
 * before its snapshot (txid below the snapshot's xmin: committed or gone, none still to come) and records
 * how far it got — `wallet_rollup_mark.rolled_through` for the next run, and the same value on the
 * `wallets` row of each organization it folded charges into, in the same transaction. A snapshot counts
 * the organization's charges from its `wallets.rolled_through` on: each charge exactly once, before or
 * after the roll-up, as before.
 *
 * Existing rows: those rolled up already, and every credit (written into the balance at once), read
 * `txid` 0, below every mark. Charges not rolled up yet get 2 — above the starting marks (1) and below
 * every real transaction id (3 and up) — so the first roll-up folds them in. `rolled_up` is dropped, so
 * that a gateway of the previous version still running against this database fails its paid invokes and
 * its roll-up loudly instead of folding a charge in a second time (docs/deploy.md: upgrade all at once).
 */
export const walletRollupByTransaction = {
  name: '20261208000000_wallet_rollup_by_transaction',
  async up(knex: Knex): Promise<void> {
    await knex.raw(`alter table wallet_ledger add column txid xid8 not null default '0'`);
    await knex.raw(`update wallet_ledger set txid = '2' where not rolled_up`);
    await knex.raw('alter table wallet_ledger alter column txid set default pg_current_xact_id()');
    await knex.raw('drop index wallet_ledger_rolled_up_organization');
    await knex.raw('alter table wallet_ledger drop column rolled_up');
    // A snapshot's range, the organization's rows past its mark, read from the index alone; and the
    // operator's listing, an organization's newest rows.
    await knex.raw(
      'create index wallet_ledger_organization_txid on wallet_ledger (organization_id, txid) include (kind, amount, occurred_at)',
    );
    // The roll-up's range, every organization's rows past the mark. Partial, with a predicate only the
    // roll-up's statement states, so that a snapshot's plan cannot take it: a plan made while the table
    // was small did, and then read every organization's rows past the mark and their heap pages (2-3 ms).
    await knex.raw(`create index wallet_ledger_txid on wallet_ledger (txid) where txid <> '0'`);
    await knex.raw(`alter table wallets add column rolled_through xid8 not null default '1'`);
    await knex.raw(`
      create table wallet_rollup_mark (
        only_row boolean primary key default true check (only_row),
        rolled_through xid8 not null
      )`);
    await knex.raw(`insert into wallet_rollup_mark (rolled_through) values ('1')`);
  },
  async down(knex: Knex): Promise<void> {
    // Charges the roll-up has not folded in yet (from the organization's mark) are not rolled up.
    await knex.raw('alter table wallet_ledger add column rolled_up boolean not null default true');
    await knex.raw(`
      update wallet_ledger l set rolled_up = false
      where l.kind = 'charge'
        and l.txid >= coalesce((select w.rolled_through from wallets w where w.organization_id = l.organization_id), '1')`);
    await knex.raw('drop table wallet_rollup_mark');
    await knex.raw('alter table wallets drop column rolled_through');
    await knex.raw('drop index wallet_ledger_txid');
    await knex.raw('drop index wallet_ledger_organization_txid');
    await knex.raw('alter table wallet_ledger drop column txid');
    await knex.raw(
      'create index wallet_ledger_rolled_up_organization on wallet_ledger (rolled_up, organization_id, occurred_at) include (amount)',
    );
  },
};
