import { errorCodes, errorEnvelope } from '@agw/contracts';
import type { ChainRun, DenyDecision, FaultCode } from '@agw/guard';
import type { MetaToolContext } from '../http/exchange.js';
import { isDependencyFailure } from '../http/gateway-error.js';

type RefusedRun = Exclude<ChainRun, { outcome: 'pass' | 'challenge' }>;

/**
 * Answers a denied or faulted run with the error envelope whose `audit_id` is the guard chain's
 * audit record of that refusal (so no second audit row is written by the error handler).
 */
export function answerRefusal(ctx: MetaToolContext, run: RefusedRun, auditId: string): void {
  const code = run.outcome === 'fault' ? faultCode(run) : undefined;
  const decision: DenyDecision =
    run.outcome === 'deny'
      ? run.decision
      : code === 'dependency_unavailable'
        ? { outcome: 'deny', code, message: 'A backing service is unavailable.', retryAfterSeconds: 5 }
        : { outcome: 'deny', code: 'internal_error', message: 'An unexpected error occurred.' };
  if (run.outcome === 'fault') {
    ctx.state.log.error({ err: run.error, guard: run.guard, audit_id: auditId }, 'guard fault');
  }
  answerError(ctx, decision, auditId);
}

/**
 * The code a faulted run answers: a guard whose database (or another backing service) could not be
 * reached is `dependency_unavailable` (503, retryable, like the same failure outside the chain), even
 * when the guard package, which cannot tell driver errors apart, recorded `internal_error`.
 */
export function faultCode(run: { readonly code: FaultCode; readonly error: Error }): FaultCode {
  return run.code === 'dependency_unavailable' || isDependencyFailure(run.error)
    ? 'dependency_unavailable'
    : run.code;
}

/** Writes one error envelope with the given audit id. */
export function answerError(
  ctx: MetaToolContext,
  decision: Omit<DenyDecision, 'outcome'>,
  auditId: string,
): void {
  const envelope = errorEnvelope(decision.code, {
    auditId,
    message: decision.message,
    ...(decision.hint === undefined ? {} : { hint: decision.hint }),
    ...(decision.details === undefined ? {} : { details: decision.details.map((detail) => ({ ...detail })) }),
    ...(decision.schemaPointer === undefined ? {} : { schemaPointer: decision.schemaPointer }),
    ...(decision.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: decision.retryAfterSeconds }),
  });
  if (decision.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(decision.retryAfterSeconds));
  ctx.status = errorCodes[decision.code].status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(envelope);
  ctx.state.errorCode = decision.code;
}
