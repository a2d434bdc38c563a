import type { Knex } from 'knex';

/**
 * Wallets, their append-only ledger, budget policy profiles and operator approvals.
 *
 * An organization without a `wallets` row has balance 0; without a `policy_profiles` row it has no
 * caps and the kill switch off. Amounts are numeric(20,6): exact decimals at the guard's
 * micro-credit scale. The ledger's `idempotency_scope` is unique, so one run is charged at most once.
 */
export const createWallets = {
  name: '20261122020000_create_wallets',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('wallets', (table) => {
      table.uuid('organization_id').primary().references('id').inTable('organizations').onDelete('CASCADE');
      table.decimal('balance', 20, 6).notNullable().defaultTo(0);
      table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('wallet_ledger', (table) => {
      table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      table.uuid('organization_id').notNullable().references('id').inTable('organizations');
      table.decimal('amount', 20, 6).notNullable();
      table.text('kind').notNullable().checkIn(['charge', 'credit'], 'wallet_ledger_kind_check');
      table.text('idempotency_scope').notNullable().unique();
      table.text('capability_id');
      table.timestamp('occurred_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.index(['organization_id', 'occurred_at']);
    });
    await knex.schema.createTable('policy_profiles', (table) => {
      table.uuid('organization_id').primary().references('id').inTable('organizations').onDelete('CASCADE');
      table.decimal('task_cap', 20, 6);
      table.decimal('daily_cap', 20, 6);
      table.decimal('monthly_cap', 20, 6);
      table.decimal('burn_rate_hourly_cap', 20, 6);
      table.boolean('kill_switch').notNullable().defaultTo(false);
      table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('approvals', (table) => {
      table.uuid('approval_id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      table.text('token_hash').notNullable().unique();
      table
        .text('status')
        .notNullable()
        .defaultTo('pending')
        .checkIn(['pending', 'approved', 'denied'], 'approvals_status_check');
      table.uuid('organization_id').notNullable().references('id').inTable('organizations');
      table.uuid('installation_id').notNullable().references('id').inTable('installations');
      table.text('capability_id').notNullable();
      table.text('capability_version').notNullable();
      table.text('params_hash').notNullable();
      table.text('reason').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable();
      table.timestamp('expires_at', { useTz: true }).notNullable();
      table.timestamp('consumed_at', { useTz: true });
      table.timestamp('decided_at', { useTz: true });
      table.index(['organization_id', 'status']);
    });
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('approvals');
    await knex.schema.dropTable('policy_profiles');
    await knex.schema.dropTable('wallet_ledger');
    await knex.schema.dropTable('wallets');
  },
};
