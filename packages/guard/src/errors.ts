import type { ErrorCode } from '@agw/contracts';
import type { DenyDecision, GuardDetail, GuardName } from './guard.js';

/** A guard or chain was built with invalid options. Thrown at construction, never per request. */
export class GuardConfigError extends Error {
  override readonly name = 'GuardConfigError';
}

/**
 * A deliberate refusal with a wire error code, for callers who prefer throwing. A guard may throw it
 * instead of returning a deny decision; the runner records it as a denial, not as a fault.
 */
export class GuardDenied extends Error {
  override readonly name = 'GuardDenied';
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly schemaPointer: string | undefined;
  readonly details: readonly GuardDetail[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** The guard that refused, when known. */
  readonly guard: GuardName | undefined;

  constructor(decision: Omit<DenyDecision, 'outcome'>, guard?: GuardName) {
    super(decision.message);
    this.code = decision.code;
    this.hint = decision.hint;
    this.schemaPointer = decision.schemaPointer;
    this.details = decision.details;
    this.retryAfterSeconds = decision.retryAfterSeconds;
    this.guard = guard;
  }

  /** The equivalent deny decision. */
  toDecision(): DenyDecision {
    return {
      outcome: 'deny',
      code: this.code,
      message: this.message,
      ...(this.hint === undefined ? {} : { hint: this.hint }),
      ...(this.schemaPointer === undefined ? {} : { schemaPointer: this.schemaPointer }),
      ...(this.details === undefined ? {} : { details: this.details }),
      ...(this.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: this.retryAfterSeconds }),
    };
  }
}

/** The fault codes: a failing dependency (retry later) or anything unexpected. */
export type FaultCode = 'internal_error' | 'dependency_unavailable';

/**
 * A guard could not decide (a port failed, a bug). The chain fails closed: a fault never passes.
 * Port adapters throw it with `dependency_unavailable` when a backing service is down.
 */
export class GuardFault extends Error {
  override readonly name: string = 'GuardFault';
  readonly code: FaultCode;
  readonly guard: GuardName | undefined;

  constructor(message: string, options: { code?: FaultCode; guard?: GuardName; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = options.code ?? 'internal_error';
    this.guard = options.guard;
  }
}

/** Wraps any thrown value as an Error, so nothing non-Error travels further. */
export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new Error(typeof value === 'string' ? value : 'A non-Error value was thrown', { cause: value });
}
