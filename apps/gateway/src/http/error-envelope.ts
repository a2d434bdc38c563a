import { type ErrorEnvelope, errorCodes, errorEnvelope, MAX_VIOLATIONS } from '@agw/contracts';
import type { GatewayError } from './gateway-error.js';

/** A GatewayError as it goes on the wire. */
export interface RenderedError {
  /** The status of the error's code in the contracts' table. */
  readonly status: number;
  /** The error's own headers (e.g. `Allow`) and `Retry-After` when it names a wait. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ErrorEnvelope;
}

/**
 * The one rendering of a GatewayError as the contracts' error envelope (`errorEnvelope`, beside the
 * `errorCodes` table), used by invoke, dry_run, the idempotent runner, the job worker and the error
 * handler alike, so every answer carries `retry_after_seconds` and `Retry-After` together. The message
 * is the error's own: the error handler hides a thrown 5xx's message before rendering it.
 */
export function renderError(error: GatewayError, auditId: string): RenderedError {
  const { options } = error;
  const body = errorEnvelope(error.code, {
    auditId,
    message: error.message,
    ...(options.hint === undefined ? {} : { hint: options.hint }),
    // The envelope lists the first MAX_VIOLATIONS (its schema's maxItems); the first one is the pointer's.
    ...(options.details === undefined
      ? {}
      : { details: options.details.slice(0, MAX_VIOLATIONS).map((detail) => ({ ...detail })) }),
    ...(options.schemaPointer === undefined ? {} : { schemaPointer: options.schemaPointer }),
    ...(options.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: options.retryAfterSeconds }),
  });
  const headers: Record<string, string> = { ...options.headers };
  if (body.error.retry_after_seconds !== undefined) {
    headers['Retry-After'] = String(body.error.retry_after_seconds);
  }
  return { status: errorCodes[error.code].status, headers, body };
}
