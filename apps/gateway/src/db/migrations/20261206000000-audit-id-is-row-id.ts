import type { Knex } from 'knex';

/**
 * Every invoke writes one `audit_events` row, and each of its indexes costs that insert. The row's
 * `audit_id` (a random UUID the gateway hands out) had a unique index of its own beside the primary
 * key `id` (another random UUID): two random identifiers of one row. New rows take their audit id as
 * `id` (src/ports/audit-rows.ts `auditRowId`), so the primary key finds them by it; the index on
 * `audit_id` keeps only the rows where the two differ — those written before, and any audit id that is
 * not a lower-case UUID — and is no longer unique (the primary key is what makes a UUID audit id unique).
 * A lookup by audit id reads both (src/admin/audit-log.ts).
 */
export const auditIdIsRowId = {
  name: '20261206000000_audit_id_is_row_id',
  async up(knex: Knex): Promise<void> {
    await knex.raw('alter table audit_events drop constraint audit_events_audit_id_unique');
    await knex.raw(
      'create index audit_events_audit_id_other on audit_events (audit_id) where id::text <> audit_id',
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('drop index audit_events_audit_id_other');
    await knex.raw('alter table audit_events add constraint audit_events_audit_id_unique unique (audit_id)');
  },
};
