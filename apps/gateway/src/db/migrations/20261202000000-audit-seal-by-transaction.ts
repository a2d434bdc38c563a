import type { Knex } from 'knex';

/**
 * The audit sealer finds new rows by the transaction that wrote them, not through a queue (issue 31).
 *
 * Before, every `audit_events` row was written three times more: an AFTER INSERT trigger queued its id
 * in `audit_unsealed`, the sealer deleted it from there, and the chain entry's foreign key looked the
 * row up again. Now each row carries `txid`, the id of the transaction that inserted it (a column
 * default, whichever code inserts). A transaction id below the oldest one still running
 * (`pg_snapshot_xmin`) belongs to a transaction that has ended, so every row it wrote is visible or will
 * never be: the sealer chains the rows below that horizon that it has not reached yet
 * (src/audit-chain/sealer.ts), and a row committing later always has a higher `txid`. How far it got is
 * one row, `audit_seal_mark`: the (txid, occurred_at, id) of the last row it chained, rows being chained
 * in that order. A row after it is new; a row before it that has no chain entry had its entry deleted,
 * which verify reports and the sealer must not paper over by chaining the row again.
 *
 * - Rows written before this migration have no `txid`; those still queued in `audit_unsealed` are sealed
 *   from that queue first, in its old order, and the queue is left to drain (no trigger fills it now).
 * - The chain entry's foreign key goes: `audit_events` is append-only (its triggers), and verify reports
 *   an entry whose row is gone (`row_missing`), which the key could not stop a superuser from doing anyway.
 */
export const auditSealByTransaction = {
  name: '20261202000000_audit_seal_by_transaction',
  async up(knex: Knex): Promise<void> {
    await knex.raw('drop trigger if exists audit_events_enqueue on audit_events');
    await knex.raw('drop function if exists agw_audit_enqueue()');
    await knex.raw('alter table audit_chain drop constraint if exists audit_chain_event_id_foreign');
    await knex.raw('alter table audit_events add column txid xid8');
    await knex.raw('alter table audit_events alter column txid set default pg_current_xact_id()');
    // Only rows written from now on have a txid: a partial index, nothing to build for the old ones.
    await knex.raw('create index audit_events_txid_index on audit_events (txid) where txid is not null');
    await knex.raw(`
      create table audit_seal_mark (
        singleton boolean primary key default true check (singleton),
        txid xid8 not null,
        occurred_at timestamptz not null,
        event_id uuid not null
      )`);
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('drop table audit_seal_mark');
    await knex.raw('drop index if exists audit_events_txid_index');
    await knex.raw(
      `insert into audit_unsealed (event_id)
       select e.id from audit_events e
        where not exists (select 1 from audit_chain c where c.event_id = e.id)
       on conflict do nothing`,
    );
    await knex.raw('alter table audit_events drop column txid');
    await knex.raw(
      'alter table audit_chain add constraint audit_chain_event_id_foreign foreign key (event_id) references audit_events (id)',
    );
    await knex.raw(`
      create function agw_audit_enqueue() returns trigger language plpgsql as $$
      begin
        insert into audit_unsealed (event_id) values (new.id);
        return null;
      end $$`);
    await knex.raw(
      `create trigger audit_events_enqueue after insert on audit_events
         for each row execute function agw_audit_enqueue()`,
    );
  },
};
