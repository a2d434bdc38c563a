import type { CapabilityViolation } from '@agw/capabilities';
import type { DenyDecision, FaultCode, Refusal } from '@agw/guard';
import { GatewayError, isDependencyFailure } from '../http/gateway-error.js';

/**
 * The one mapping of a settled guard refusal to the wire error, wherever the chain stopped (admission,
 * execute, defer): a denial answers its own decision; a fault answers `dependency_unavailable` (503,
 * retryable) when a backing service could not be reached, else `internal_error` with no internals. A
 * challenge never reaches here from the standard chain (only `policy` challenges, and admission
 * answers it as `pending_approval`); one after admission would be a bug, so it is an internal error.
 */
export function refusalError(refusal: Refusal): GatewayError {
  if (refusal.outcome === 'deny') return denialError(refusal.decision);
  const cause = refusal.outcome === 'fault' ? refusal.error : refusal.decision;
  if (refusal.outcome === 'fault' && faultCode(refusal) === 'dependency_unavailable') {
    return new GatewayError('dependency_unavailable', {
      message: 'A backing service is unavailable.',
      retryAfterSeconds: 5,
      cause,
    });
  }
  return new GatewayError('internal_error', { message: 'An unexpected error occurred.', cause });
}

/**
 * The wire error of a denial, wherever it was decided: by a guard of the chain, or thrown as a
 * GuardDenied by a handler (its fetch's refused URL: `cause`). Every field of the decision is kept.
 */
export function denialError(decision: DenyDecision, cause?: unknown): GatewayError {
  const { code, message, hint, schemaPointer, details, retryAfterSeconds } = decision;
  return new GatewayError(code, {
    message,
    ...(hint === undefined ? {} : { hint }),
    ...(schemaPointer === undefined ? {} : { schemaPointer }),
    ...(details === undefined ? {} : { details }),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The code a faulted run answers: a guard whose database (or another backing service) could not be
 * reached is `dependency_unavailable` (503, retryable, like the same failure outside the chain), even
 * when the guard package, which cannot tell driver errors apart, recorded `internal_error`.
 */
export function faultCode(fault: { readonly code: FaultCode; readonly error: Error }): FaultCode {
  return fault.code === 'dependency_unavailable' || isDependencyFailure(fault.error)
    ? 'dependency_unavailable'
    : fault.code;
}

/** What a capability's own refusal is made of: a thrown CapabilityError, or violations without one. */
interface CapabilityRefusal {
  readonly code: NonNullable<CapabilityViolation['code']>;
  readonly message: string;
  readonly violations: readonly CapabilityViolation[];
  readonly hint?: string | undefined;
  readonly retryAfterSeconds?: number | undefined;
}

/** The hint of a handler's own refusal that names none: its params are well-formed, a rule refused them. */
export const BUSINESS_RULE_HINT =
  'The params match the schema but a rule of the capability refuses them; see details[] for each violation and its JSON Pointer, and dry_run the corrected call before invoking it.';

/**
 * The one denial of a capability's own rule, whether `handle` threw it or its preflight found it before
 * an approval (src/invoke/preflight.ts): its code and message; its hint, else the first violation's, else
 * for a `validation_failed` one saying the schema was met (other codes keep the error table's); the first
 * violation's pointer as `schema_pointer` and every violation in `details[]`, as the schema guard does.
 */
export function capabilityDenial(refusal: CapabilityRefusal): DenyDecision {
  const [first] = refusal.violations;
  const hint =
    refusal.hint ?? first?.hint ?? (refusal.code === 'validation_failed' ? BUSINESS_RULE_HINT : undefined);
  return {
    outcome: 'deny',
    code: refusal.code,
    message: refusal.message,
    ...(hint === undefined ? {} : { hint }),
    ...(first === undefined
      ? {}
      : { schemaPointer: first.schema_pointer, details: refusal.violations.map((v) => ({ ...v })) }),
    ...(refusal.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: refusal.retryAfterSeconds }),
  };
}
