import type { DeferredRun } from '@agw/guard';
import type { Knex } from 'knex';

/** The states of a job: `queued` → `running` → `succeeded` | `failed` (`running` → `queued` on a retry). */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/**
 * The guard chain's deferred run as stored: without params (their own column) and without the contract
 * (the catalog's, when the job runs). The gateway wrote it, so it is read back as is.
 */
export interface StoredRunState extends Omit<DeferredRun, 'request'> {
  readonly request: Omit<DeferredRun['request'], 'capability' | 'params'>;
}

/** One `invoke_jobs` row as the gateway reads it. */
export interface JobRow {
  readonly id: string;
  readonly organization_id: string;
  readonly installation_id: string;
  readonly capability_id: string;
  readonly capability_version: string;
  readonly params: unknown;
  readonly idempotency_key: string | null;
  readonly run_state: StoredRunState;
  readonly status: JobStatus;
  readonly attempts: number;
  readonly max_attempts: number;
  readonly lease_owner: string | null;
  readonly accepted_audit_id: string;
  readonly outcome_audit_id: string | null;
  readonly response_status: number | null;
  readonly response: unknown;
  readonly created_at: Date | string;
}

/** What the accepting request stores. */
export type NewJob = Pick<
  JobRow,
  | 'id'
  | 'organization_id'
  | 'installation_id'
  | 'capability_id'
  | 'capability_version'
  | 'params'
  | 'idempotency_key'
  | 'run_state'
  | 'max_attempts'
  | 'accepted_audit_id'
>;

/** Inserts a queued job; runs in the accepting request's transaction, beside its audit record. */
export async function insertJob(db: Knex, job: NewJob): Promise<void> {
  await db('invoke_jobs').insert({
    ...job,
    // jsonb columns: knex passes objects to pg as JSON only when they are strings.
    params: JSON.stringify(job.params),
    run_state: JSON.stringify(job.run_state),
  });
}

/**
 * Claims the oldest due job for `owner`: a queued one whose `available_at` has come, or a running one
 * whose lease expired (its process died or lost its database connection). One statement, `FOR UPDATE
 * SKIP LOCKED`: concurrent claimers never get the same row, and a job whose run is still in progress
 * (its row locked by the running transaction) is skipped even past its lease. Committed on its own, so
 * `attempts` counts a run that crashed its process. Times are the database's, shared by all instances.
 */
export async function claimJob(knex: Knex, owner: string, leaseMs: number): Promise<JobRow | undefined> {
  const result = await knex.raw(
    `update invoke_jobs
        set status = 'running', attempts = attempts + 1, lease_owner = ?,
            lease_expires_at = now() + (? * interval '1 millisecond'),
            started_at = coalesce(started_at, now()), updated_at = now()
      where id = (
        select id from invoke_jobs
         where (status = 'queued' and available_at <= now())
            or (status = 'running' and lease_expires_at < now())
         order by available_at
         limit 1
         for update skip locked)
      returning *`,
    [owner, leaseMs],
  );
  return (result.rows as JobRow[])[0];
}

/**
 * Locks a claimed job for its run, in the run's transaction: the row stays locked until the run commits
 * or rolls back. Undefined when `owner` no longer holds it (the lease expired and another took it).
 */
export async function lockJob(trx: Knex, id: string, owner: string): Promise<JobRow | undefined> {
  return trx('invoke_jobs')
    .where({ id, status: 'running', lease_owner: owner })
    .forUpdate()
    .first<JobRow | undefined>();
}

/** The final state of a job: the InvokeResponse (succeeded) or the error envelope (failed). */
export interface JobOutcome {
  readonly status: 'succeeded' | 'failed';
  readonly responseStatus: number;
  readonly response: unknown;
  readonly outcomeAuditId: string;
  readonly errorCode?: string;
}

/** Stores the final answer and releases the lease; in the run's transaction, with the charge. */
export async function finishJob(trx: Knex, id: string, outcome: JobOutcome): Promise<void> {
  await trx('invoke_jobs')
    .where({ id })
    .update({
      status: outcome.status,
      response_status: outcome.responseStatus,
      response: JSON.stringify(outcome.response),
      outcome_audit_id: outcome.outcomeAuditId,
      error_code: outcome.errorCode ?? null,
      lease_owner: null,
      lease_expires_at: null,
      finished_at: trx.fn.now(),
      updated_at: trx.fn.now(),
    });
}

/** Puts a job back in the queue for another attempt after `delayMs`. */
export async function requeueJob(trx: Knex, id: string, delayMs: number, errorCode: string): Promise<void> {
  await trx('invoke_jobs')
    .where({ id })
    .update({
      status: 'queued',
      error_code: errorCode,
      lease_owner: null,
      lease_expires_at: null,
      available_at: trx.raw(`now() + (? * interval '1 millisecond')`, [delayMs]),
      updated_at: trx.fn.now(),
    });
}

/** The job `id` of `organizationId`; undefined for another organization's job, as for a missing one. */
export async function findJob(knex: Knex, organizationId: string, id: string): Promise<JobRow | undefined> {
  return knex('invoke_jobs').where({ id, organization_id: organizationId }).first<JobRow | undefined>();
}
