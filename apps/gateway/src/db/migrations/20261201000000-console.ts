import type { Knex } from 'knex';

/**
 * The operator console (src/console): its sessions, and the params of a run approval so the operator
 * sees what they approve.
 *
 * A session row holds only the sha-256 of the cookie's token (like api_keys' secret hashes) and the
 * operator key that signed in: revoking that key ends its sessions. `idle_expires_at` moves with each
 * request; `absolute_expires_at` never does. An approval's params are stored AES-256-GCM encrypted with
 * the server secret (purpose `approval-params`); rows created before this migration have none.
 */
export const createConsole = {
  name: '20261201000000_console',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('console_sessions', (table) => {
      table.text('token_hash').primary();
      table.uuid('operator_key_id').notNullable().references('id').inTable('api_keys').onDelete('CASCADE');
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.timestamp('idle_expires_at', { useTz: true }).notNullable();
      table.timestamp('absolute_expires_at', { useTz: true }).notNullable();
      table.index(['absolute_expires_at']);
    });
    await knex.raw('alter table approvals add column params_ciphertext bytea');
    // The console's queue reads waiting approvals oldest first, a page at a time (keyset paging).
    await knex.raw(
      "create index approvals_pending_queue on approvals (created_at, approval_id) where status = 'pending'",
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('drop index approvals_pending_queue');
    await knex.raw('alter table approvals drop column params_ciphertext');
    await knex.schema.dropTable('console_sessions');
  },
};
