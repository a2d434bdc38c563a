import { randomUUID } from 'node:crypto';
import type { ErrorCode, InvokeRequest } from '@agw/contracts';
import type { ChainRun, Principal } from '@agw/guard';
import { GatewayError } from '../http/gateway-error.js';
import type { InvokeRuntime } from '../invoke/chain.js';
import type { Executed } from '../invoke/invoke.js';
import type { CatalogContract } from '../meta-tools/catalog.js';
import { insertJob, type StoredRunState } from './job-store.js';
import { acceptedResponse } from './poll.js';

/** Runs of a job that fail unexpectedly (or whose process dies) are tried this often in all. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * The synchronous half of a long-running invoke, inside the invoke's transaction: the chain continues
 * through `audit` and `billing`'s check (so a refusal is answered now, with the usual envelope), the
 * run is settled as `accepted` (its audit record is the answer's `audit_id`; nothing is charged), and
 * the job is stored in the same transaction with the chain's snapshot. The worker (src/jobs/run-job.ts)
 * restores that snapshot and runs egress, the handler and the final settle.
 */
export async function acceptJob(
  runtime: InvokeRuntime,
  checked: ChainRun,
  contract: CatalogContract,
  request: InvokeRequest,
): Promise<Executed> {
  const { chain, executor } = runtime;
  const run = await chain.resume(checked, { until: 'billing' });
  if (run.outcome !== 'pass') {
    const settlement = await chain.settle(run);
    const decision =
      run.outcome === 'deny'
        ? run.decision
        : { code: 'internal_error' as ErrorCode, message: 'An unexpected error occurred.' };
    return {
      kind: 'refused',
      error: new GatewayError(decision.code, decision),
      auditId: settlement.auditId ?? '',
    };
  }
  const snapshot = chain.snapshot(run);
  const settlement = await chain.settle(run, { status: 'accepted' });
  const principal = run.context.facts.principal as Principal;
  const id = randomUUID();
  const auditId = settlement.auditId ?? '';
  const { capability: _contract, params: _params, ...requestState } = snapshot.request;
  // The deferred decision record was written by the `accepted` settle above; the worker's settle must
  // not write it again.
  const { deferredDecision: _written, ...facts } = snapshot.facts;
  const runState: StoredRunState = {
    request: requestState,
    facts,
    trace: snapshot.trace.map((entry) => ({ ...entry })),
    after: snapshot.after,
  };
  await insertJob(executor.current(), {
    id,
    organization_id: principal.organization_id,
    installation_id: principal.installation_id,
    capability_id: contract.id,
    capability_version: contract.version,
    params: request.params,
    // The keyed hash the chain was given (src/invoke/invoke.ts), never the client's key in clear.
    idempotency_key: snapshot.request.idempotencyKey ?? null,
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
