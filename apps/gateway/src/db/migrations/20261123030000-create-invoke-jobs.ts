import type { Knex } from 'knex';

/**
 * Jobs of long-running invokes (`status: accepted`). The accepting request writes the row in the same
 * transaction as its audit record; a worker in any gateway process claims it with
 * `FOR UPDATE SKIP LOCKED` and a lease (`lease_owner`, `lease_expires_at`), so a job whose process died
 * is taken again once the lease expired. `run_state` is the guard chain's snapshot without params and
 * without credentials; `response` is the final InvokeResponse (succeeded) or error envelope (failed).
 */
export const createInvokeJobs = {
  name: '20261123030000_create_invoke_jobs',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('invoke_jobs', (table) => {
      table.uuid('id').primary();
      table.uuid('organization_id').notNullable().references('organizations.id');
      table.uuid('installation_id').notNullable().references('installations.id');
      table.text('capability_id').notNullable();
      table.text('capability_version').notNullable();
      table.jsonb('params').notNullable();
      table.text('idempotency_key');
      table.jsonb('run_state').notNullable();
      table
        .text('status')
        .notNullable()
        .defaultTo('queued')
        .checkIn(['queued', 'running', 'succeeded', 'failed'], 'invoke_jobs_status_check');
      table.integer('attempts').notNullable().defaultTo(0);
      table.integer('max_attempts').notNullable();
      // A queued job is not claimed before this (retry back-off); the accepting request sets it to now.
      table.timestamp('available_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.text('lease_owner');
      table.timestamp('lease_expires_at', { useTz: true });
      table.text('accepted_audit_id').notNullable();
      table.text('outcome_audit_id');
      table.text('error_code');
      table.integer('response_status');
      table.jsonb('response');
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.timestamp('started_at', { useTz: true });
      table.timestamp('finished_at', { useTz: true });
      table.index(['organization_id', 'created_at']);
    });
    // The claim query's two ways in: due queued jobs, and running jobs whose lease ran out.
    await knex.raw(
      "create index invoke_jobs_queued_idx on invoke_jobs (available_at) where status = 'queued'",
    );
    await knex.raw(
      "create index invoke_jobs_leased_idx on invoke_jobs (lease_expires_at) where status = 'running'",
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('invoke_jobs');
  },
};
