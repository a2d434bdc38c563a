import { runStatement, type Sql } from '@agw/capabilities';
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

const INSERT = {
  name: 'agw.jobs.insert',
  text: `INSERT INTO invoke_jobs (id, organization_id, installation_id, capability_id, capability_version, params,
                               idempotency_key, run_state, max_attempts, accepted_audit_id)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::jsonb, $9, $10)`,
};

/** Inserts a queued job; runs in the accepting request's transaction, beside its audit record. */
export async function insertJob(sql: Sql, job: NewJob): Promise<void> {
  await runStatement(sql, INSERT, [
    job.id,
    job.organization_id,
    job.installation_id,
    job.capability_id,
    job.capability_version,
    // Serialized here: `pg` would send a JavaScript array as a PostgreSQL array, not as JSON.
    JSON.stringify(job.params),
    job.idempotency_key,
    JSON.stringify(job.run_state),
    job.max_attempts,
    job.accepted_audit_id,
  ]);
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

const COLUMNS = `id, organization_id, installation_id, capability_id, capability_version, params, idempotency_key,
  run_state, status, attempts, max_attempts, lease_owner, accepted_audit_id, outcome_audit_id, response_status,
  response, created_at`;
const LOCK = {
  name: 'agw.jobs.lock',
  text: `SELECT ${COLUMNS} FROM invoke_jobs WHERE id = $1 AND status = 'running' AND lease_owner = $2 FOR UPDATE`,
};

/**
 * Locks a claimed job for its run, in the run's transaction: the row stays locked until the run commits
 * or rolls back. Undefined when `owner` no longer holds it (the lease expired and another took it).
 */
export async function lockJob(sql: Sql, id: string, owner: string): Promise<JobRow | undefined> {
  const { rows } = await runStatement<JobRow>(sql, LOCK, [id, owner]);
  return rows[0];
}

/** The final state of a job: the InvokeResponse (succeeded) or the error envelope (failed). */
export interface JobOutcome {
  readonly status: 'succeeded' | 'failed';
  readonly responseStatus: number;
  readonly response: unknown;
  readonly outcomeAuditId: string;
  readonly errorCode?: string;
}

const FINISH = {
  name: 'agw.jobs.finish',
  text: `UPDATE invoke_jobs
            SET status = $2, response_status = $3, response = $4::jsonb, outcome_audit_id = $5, error_code = $6,
                lease_owner = NULL, lease_expires_at = NULL, finished_at = now(), updated_at = now()
          WHERE id = $1`,
};

/** Stores the final answer and releases the lease; in the run's transaction, with the charge. */
export async function finishJob(sql: Sql, id: string, outcome: JobOutcome): Promise<void> {
  await runStatement(sql, FINISH, [
    id,
    outcome.status,
    outcome.responseStatus,
    JSON.stringify(outcome.response),
    outcome.outcomeAuditId,
    outcome.errorCode ?? null,
  ]);
}

const REQUEUE = {
  name: 'agw.jobs.requeue',
  text: `UPDATE invoke_jobs
            SET status = 'queued', error_code = $3, lease_owner = NULL, lease_expires_at = NULL,
                available_at = now() + ($2::double precision * interval '1 millisecond'), updated_at = now()
          WHERE id = $1`,
};

/** Puts a job back in the queue for another attempt after `delayMs`. */
export async function requeueJob(sql: Sql, id: string, delayMs: number, errorCode: string): Promise<void> {
  await runStatement(sql, REQUEUE, [id, delayMs, errorCode]);
}

const FIND = {
  name: 'agw.jobs.find',
  text: `SELECT ${COLUMNS} FROM invoke_jobs WHERE id = $1 AND organization_id = $2`,
};

/** The job `id` of `organizationId`; undefined for another organization's job, as for a missing one. */
export async function findJob(sql: Sql, organizationId: string, id: string): Promise<JobRow | undefined> {
  const { rows } = await runStatement<JobRow>(sql, FIND, [id, organizationId]);
  return rows[0];
}
