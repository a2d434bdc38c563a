import type { Knex } from 'knex';

/**
 * The sealer remembers the snapshot it last sealed under, not the position of the last row it chained
 * (issue 31; src/audit-chain/sealer.ts).
 *
 * `20261202000000_audit_seal_by_transaction` had the sealer wait until every transaction older than a
 * row had ended (`pg_snapshot_xmin`): transaction ids are shared by every database of the cluster, so one
 * long transaction anywhere — another database's, a long job's — held every chain back. Now a row is new
 * when it was not visible in the last sealing snapshot (`audit_seal_mark.snapshot`): its `txid` at or
 * above that snapshot's xmax, or among the transactions then in progress. An open transaction delays only
 * its own rows. A row visible in the last snapshot was sealed then, so a chain entry deleted later is
 * reported by verify, not papered over by chaining its row again.
 *
 * The mark starts at a snapshot in which no transaction is visible: the first run looks at every row with a
 * `txid` once, and skips those the previous scheme already chained.
 */
export const auditSealSnapshot = {
  name: '20261202010000_audit_seal_snapshot',
  async up(knex: Knex): Promise<void> {
    await knex.raw('drop table audit_seal_mark');
    await knex.raw(`
      create table audit_seal_mark (
        singleton boolean primary key default true check (singleton),
        snapshot pg_snapshot not null
      )`);
    await knex.raw(`insert into audit_seal_mark (snapshot) values ('1:1:')`);
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('drop table audit_seal_mark');
    await knex.raw(`
      create table audit_seal_mark (
        singleton boolean primary key default true check (singleton),
        txid xid8 not null,
        occurred_at timestamptz not null,
        event_id uuid not null
      )`);
  },
};
