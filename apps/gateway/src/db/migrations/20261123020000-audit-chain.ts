import type { Knex } from 'knex';

/**
 * The tamper-evident audit log (docs/audit.md).
 *
 * - `audit_chain`: one row per sealed `audit_events` row, `seq` gapless from 1, each `hash` covering the
 *   previous one. Written only by the sealer (src/audit-chain/sealer.ts), never on the request path.
 * - `audit_unsealed`: the sealer's work queue. An AFTER INSERT trigger on `audit_events` enqueues every
 *   new row, whichever code inserted it, so the sealer never scans the whole log for unsealed rows; it
 *   deletes what it sealed. Verify does not trust the queue: it counts unsealed rows from the tables.
 * - Append-only: triggers reject UPDATE, DELETE and TRUNCATE on `audit_events` and `audit_chain` for
 *   every role (a superuser can still bypass them with `session_replication_role = replica`, which is
 *   what verify exists to catch).
 */
export const createAuditChain = {
  name: '20261123020000_audit_chain',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('audit_chain', (table) => {
      table.bigInteger('seq').primary();
      table.uuid('event_id').notNullable().unique().references('id').inTable('audit_events');
      table.text('prev_hash').notNullable();
      table.text('hash').notNullable();
      table.timestamp('sealed_at', { useTz: true }).notNullable();
    });
    await knex.schema.createTable('audit_unsealed', (table) => {
      // No foreign key: the trigger inserts only ids of rows it just saw, and a check per insert would
      // cost the request path a lookup.
      table.uuid('event_id').primary();
    });
    await knex.raw(`
      create function agw_audit_append_only() returns trigger language plpgsql as $$
      begin
        raise exception '% is append-only: % is not allowed', tg_table_name, tg_op
          using errcode = 'insufficient_privilege';
      end $$`);
    await knex.raw(`
      create function agw_audit_enqueue() returns trigger language plpgsql as $$
      begin
        insert into audit_unsealed (event_id) values (new.id);
        return null;
      end $$`);
    for (const table of ['audit_events', 'audit_chain']) {
      await knex.raw(
        `create trigger ${table}_no_change before update or delete on ${table}
           for each row execute function agw_audit_append_only()`,
      );
      await knex.raw(
        `create trigger ${table}_no_truncate before truncate on ${table}
           for each statement execute function agw_audit_append_only()`,
      );
    }
    await knex.raw(
      `create trigger audit_events_enqueue after insert on audit_events
         for each row execute function agw_audit_enqueue()`,
    );
    // Rows written before this migration are sealed by the first sealer run.
    await knex.raw('insert into audit_unsealed (event_id) select id from audit_events');
  },
  async down(knex: Knex): Promise<void> {
    for (const table of ['audit_events', 'audit_chain']) {
      await knex.raw(`drop trigger if exists ${table}_no_change on ${table}`);
      await knex.raw(`drop trigger if exists ${table}_no_truncate on ${table}`);
    }
    await knex.raw('drop trigger if exists audit_events_enqueue on audit_events');
    await knex.schema.dropTable('audit_unsealed');
    await knex.schema.dropTable('audit_chain');
    await knex.raw('drop function if exists agw_audit_enqueue()');
    await knex.raw('drop function if exists agw_audit_append_only()');
  },
};
