import type { Knex } from 'knex';

/**
 * The retention sweep's way in (src/jobs/retention.ts): finished jobs by `finished_at`, oldest first.
 * Partial, like the claim's two indexes: queued and running rows are never swept, so they stay out of
 * it, and its predicate is the sweep's own, so the planner can use it.
 */
export const indexFinishedInvokeJobs = {
  name: '20261124010000_index_finished_invoke_jobs',
  async up(knex: Knex): Promise<void> {
    // A table kept forever until now may be large: building the index must not hit the request-sized
    // DATABASE_STATEMENT_TIMEOUT_MS (LOCAL: only this migration's transaction).
    await knex.raw('set local statement_timeout = 0');
    await knex.raw(
      "create index invoke_jobs_finished_idx on invoke_jobs (finished_at) where status in ('succeeded', 'failed')",
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('drop index invoke_jobs_finished_idx');
  },
};
