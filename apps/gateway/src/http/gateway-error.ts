import type { ErrorCode } from '@agw/contracts';

/** The optional members of an error envelope a thrower may set. */
export interface GatewayErrorOptions {
  readonly message?: string;
  readonly hint?: string;
  readonly details?: ReadonlyArray<Record<string, unknown>>;
  readonly schemaPointer?: string;
  readonly retryAfterSeconds?: number;
  /** Extra response headers (e.g. Allow for 405). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/**
 * An error meant for the wire: the error handler answers with its code's status and the envelope.
 * Its message is shown to the client, so it must never hold secrets or internals.
 *
 * @example
 * throw new GatewayError('unsupported_media_type', { message: 'Send Content-Type: application/json.' });
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly code: ErrorCode;
  readonly options: GatewayErrorOptions;

  constructor(code: ErrorCode, options: GatewayErrorOptions = {}) {
    super(options.message ?? code, { cause: options.cause });
    this.code = code;
    this.options = options;
  }
}

/**
 * The database (or another backing service) could not be reached. The error handler answers 503
 * `dependency_unavailable`; route code may throw it or let a driver error classified by
 * {@link isDependencyFailure} bubble up.
 */
export function dependencyUnavailable(cause: unknown): GatewayError {
  return new GatewayError('dependency_unavailable', {
    message: 'A backing service is unavailable.',
    retryAfterSeconds: 5,
    cause,
  });
}

// Connection-level failures of pg, knex's pool and the network stack (PostgreSQL SQLSTATE class 08 is
// "connection exception", 57P0x are shutdown/cannot-connect-now). 57014 `query_canceled` is a statement
// the server ended (DATABASE_STATEMENT_TIMEOUT_MS, or an operator's pg_cancel_backend): the database
// could not serve the request in time, and its transaction rolled back, so a retry is safe.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);

/** True when `error` says a backing service is unreachable rather than that the request was wrong. */
export function isDependencyFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'KnexTimeoutError') return true;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (NETWORK_CODES.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === '57014')
  ) {
    return true;
  }
  // pg-pool's "timeout exceeded when trying to connect" is the wait for a pooled connection (3 s).
  // pg's "…connection error and is not queryable" has no code: knex surfaces it (as `ROLLBACK - …`) when
  // a transaction's connection died mid-request, replacing the original connection error.
  if (
    /Connection terminated|connection timeout|Timeout acquiring a connection|timeout exceeded when trying to connect|connection error and is not queryable/i.test(
      error.message,
    )
  )
    return true;
  if (error instanceof AggregateError) return error.errors.some(isDependencyFailure);
  return error.cause !== undefined && error.cause !== error && isDependencyFailure(error.cause);
}
