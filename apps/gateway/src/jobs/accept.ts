import { randomUUID } from 'node:crypto';
import type { InvokeRequest } from '@agw/contracts';
import type { AdmittedRun, GuardCapability, Principal } from '@agw/guard';
import type { Executed } from '../invoke/execute.js';
import { refusalError } from '../invoke/refusal.js';
import type { UnitOfWork } from '../invoke/unit-of-work.js';
import { insertJob, type StoredRunState } from './job-store.js';
import { acceptedResponse } from './poll.js';

/** Runs of a job that fail unexpectedly (or whose process dies) are tried this often in all. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * The synchronous half of a long-running invoke, in the invoke's unit of work (a transaction whose
 * ports write: src/invoke/unit-of-work.ts `transaction` or `within`): the admitted run is
 * deferred — `audit` and `billing`'s check run now (so a refusal is answered now, with the usual
 * envelope), and it is settled as `accepted` (its audit record is the answer's `audit_id`; nothing is
 * charged) — and the job is stored in the same transaction with the run at rest. The worker
 * (src/jobs/run-job.ts) restores it and runs egress, the handler and the final settle.
 */
export async function acceptJob(
  unit: UnitOfWork,
  admitted: AdmittedRun<Principal>,
  contract: GuardCapability,
  request: InvokeRequest,
): Promise<Executed> {
  const deferral = await admitted.defer({ unit });
  const auditId = deferral.settlement.auditId ?? '';
  if (deferral.outcome !== 'accepted') return { kind: 'refused', error: refusalError(deferral), auditId };
  const { principal } = admitted;
  const { run } = deferral;
  // Params have their own column and the contract comes from the catalog when the job runs.
  const { capability: _contract, params: _params, ...requestState } = run.request;
  const runState: StoredRunState = {
    request: requestState,
    facts: { ...run.facts },
    trace: run.trace.map((entry) => ({ ...entry })),
    after: run.after,
  };
  const id = randomUUID();
  await insertJob(unit.sql, {
    id,
    organization_id: principal.organization_id,
    installation_id: principal.installation_id,
    capability_id: contract.id,
    capability_version: contract.version,
    params: request.params,
    // The keyed hash the chain was given (src/meta-tools/invoke.ts), never the client's key in clear.
    idempotency_key: run.request.idempotencyKey ?? null,
    run_state: runState,
    max_attempts: DEFAULT_MAX_ATTEMPTS,
    accepted_audit_id: auditId,
  });
  return {
    kind: 'succeeded',
    body: acceptedResponse({
      id,
      capability_id: contract.id,
      capability_version: contract.version,
      accepted_audit_id: auditId,
      status: 'queued',
      ageMs: 0,
    }),
  };
}
