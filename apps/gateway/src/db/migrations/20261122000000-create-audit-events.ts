import type { Knex } from 'knex';

/**
 * The foundation audit table. Every error response writes one row with its audit_id now; later issues
 * add the guard-decision and state-change records to the same table.
 */
export const createAuditEvents = {
  name: '20261122000000_create_audit_events',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('audit_events', (table) => {
      table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      table.text('audit_id').notNullable().unique();
      table.timestamp('occurred_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.text('request_id').notNullable();
      table.text('actor').notNullable();
      table.text('action').notNullable();
      table.text('outcome').notNullable();
      table.integer('http_status').notNullable();
      table.jsonb('details').notNullable().defaultTo('{}');
      table.index(['occurred_at']);
    });
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('audit_events');
  },
};
