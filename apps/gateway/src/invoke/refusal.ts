import { errorCodes, errorEnvelope } from '@agw/contracts';
import type { ChainRun, DenyDecision } from '@agw/guard';
import type { MetaToolContext } from '../http/exchange.js';

type RefusedRun = Exclude<ChainRun, { outcome: 'pass' | 'challenge' }>;

/**
 * Answers a denied or faulted run with the error envelope whose `audit_id` is the guard chain's
 * audit record of that refusal (so no second audit row is written by the error handler).
 */
export function answerRefusal(ctx: MetaToolContext, run: RefusedRun, auditId: string): void {
  const decision: DenyDecision =
    run.outcome === 'deny'
      ? run.decision
      : {
          outcome: 'deny',
          code: run.code,
          message:
            run.code === 'dependency_unavailable'
              ? 'A backing service is unavailable.'
              : 'An unexpected error occurred.',
        };
  if (run.outcome === 'fault') {
    ctx.state.log.error({ err: run.error, guard: run.guard, audit_id: auditId }, 'guard fault');
  }
  answerError(ctx, decision, auditId);
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
