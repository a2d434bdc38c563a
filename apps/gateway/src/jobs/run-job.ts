import type { CapabilityHandler, Sql } from '@agw/capabilities';
import type { ErrorCode } from '@agw/contracts';
import type { ExecutableRun, GuardCapability, Principal } from '@agw/guard';
import { renderError } from '../http/error-envelope.js';
import { GatewayError } from '../http/gateway-error.js';
import { type Executed, executeCapability } from '../invoke/execute.js';
import type { InvokeRuntime } from '../invoke/runtime.js';
import { UnitOfWork } from '../invoke/unit-of-work.js';
import type { Logger } from '../logger.js';
import { capabilityKey } from '../meta-tools/capability-key.js';
import { finishJob, type JobRow, lockJob, requeueJob } from './job-store.js';

/** What a worker runs jobs with: the invoke route's own runtime (one chain), catalog and handlers. */
export interface JobRunner {
  readonly runtime: InvokeRuntime;
  /** The catalog's contract of that id and version, if this gateway still lists it. */
  contractOf(id: string, version: string): GuardCapability | undefined;
  readonly handlers: ReadonlyMap<string, CapabilityHandler<never>>;
}

/** Settings of one run. */
export interface RunJobOptions {
  /** This worker's lease owner id. */
  readonly owner: string;
  /** Wait before another attempt after an unexpected handler failure (times the attempt number). */
  readonly retryDelayMs: number;
  readonly logger: Logger;
}

/**
 * Runs one claimed job in one transaction (its unit of work, src/invoke/unit-of-work.ts: the chain's
 * ports write in it, a mutating handler runs in a savepoint): the job row is locked (so no other worker takes it while it
 * runs, even past its lease), the deferred run is restored from the row, and invoke's own
 * `executeCapability` runs egress, the handler and the settle (charge once on success, outcome audit
 * record). The final answer is stored in the same transaction, so the handler's writes, the charge, the
 * audit record and the job's result commit together or not at all. An unexpected handler failure is
 * tried again (up to the job's `max_attempts`); a decided failure (a CapabilityError, egress_denied) is
 * final. If the transaction fails (database down, settle fault) nothing commits and the lease expiry
 * hands the job to the next claim.
 */
export async function runJob(runner: JobRunner, job: JobRow, options: RunJobOptions): Promise<void> {
  const { runtime } = runner;
  await UnitOfWork.transaction(runtime.knex, async (unit) => {
    const { sql } = unit;
    const locked = await lockJob(sql, job.id, options.owner);
    if (locked === undefined) return;
    const contract = runner.contractOf(job.capability_id, job.capability_version);
    const handler = contract && runner.handlers.get(capabilityKey(contract.id, contract.version));
    const run = restoreRun(runner, job, contract);
    let executed: Executed;
    if (contract === undefined || handler === undefined) {
      executed = await fail(unit, run, 'capability_not_found', 'The capability is gone from this gateway.');
    } else if (locked.attempts > locked.max_attempts) {
      executed = await fail(unit, run, 'internal_error', 'The job failed after every attempt.');
    } else {
      executed = await executeCapability(runtime, unit, run, { contract, handler, params: job.params });
    }
    await store(sql, locked, executed, options);
  });
}

async function store(sql: Sql, job: JobRow, executed: Executed, options: RunJobOptions): Promise<void> {
  if (executed.kind === 'succeeded') {
    await finishJob(sql, job.id, {
      status: 'succeeded',
      responseStatus: 200,
      response: executed.body,
      outcomeAuditId: executed.body.audit_id,
    });
    return;
  }
  const { error, auditId } = executed;
  if (error.code === 'internal_error') {
    options.logger.error(
      { err: error.cause, job_id: job.id, attempt: job.attempts, audit_id: auditId },
      'job run failed',
    );
    if (job.attempts < job.max_attempts) {
      await requeueJob(sql, job.id, options.retryDelayMs * job.attempts, error.code);
      return;
    }
  }
  // The stored answer is the envelope invoke would have given (src/http/error-envelope.ts).
  const rendered = renderError(error, auditId);
  await finishJob(sql, job.id, {
    status: 'failed',
    responseStatus: rendered.status,
    response: rendered.body,
    outcomeAuditId: auditId,
    errorCode: error.code,
  });
}

/**
 * The accepted run, restored from the job row after `billing`. A capability no longer in the catalog
 * still gets an outcome audit record, with the identity the job stored.
 */
function restoreRun(
  runner: JobRunner,
  job: JobRow,
  contract: GuardCapability | undefined,
): ExecutableRun<Principal> {
  const capability: GuardCapability = contract ?? {
    id: job.capability_id,
    version: job.capability_version,
    risk_level: 'low',
    scopes: [],
    cost_credits: '0',
    mutating: false,
    input_schema: {},
  };
  const state = job.run_state;
  return runner.runtime.chain.restore({
    ...state,
    request: { ...state.request, capability, params: job.params },
  });
}

/** Settles a job that cannot run as failed: one outcome audit record, nothing charged. */
async function fail(
  unit: UnitOfWork,
  run: ExecutableRun<Principal>,
  code: ErrorCode,
  message: string,
): Promise<Executed> {
  const settlement = await run.fail(code, { unit });
  return { kind: 'refused', error: new GatewayError(code, { message }), auditId: settlement.auditId ?? '' };
}
