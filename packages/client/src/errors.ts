import type { ErrorCode } from '@agw/contracts';
import { brand, hasBrand } from './brand.js';

/**
 * Code of a {@link GatewayError}: one of the gateway's documented codes, `unexpected_response` when the
 * answer was not the gateway's envelope (a proxy's HTML page, an empty body), or a code this SDK version
 * does not know yet.
 */
export type GatewayErrorCode = ErrorCode | 'unexpected_response' | (string & {});

/** What a {@link GatewayError} is built from. */
export interface GatewayErrorInit {
  code: GatewayErrorCode;
  message: string;
  status: number;
  retryable: boolean;
  auditId?: string | undefined;
  hint?: string | undefined;
  details?: Record<string, unknown>[] | undefined;
  retryAfterSeconds?: number | undefined;
  schemaPointer?: string | undefined;
  docUrl?: string | undefined;
  requestId?: string | undefined;
  method: string;
  path: string;
}

/**
 * The gateway answered with an error status. Fields mirror the spec's error envelope; `requestId` is the
 * `X-Request-Id` response header. Never contains the API key or a one-time code.
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  /** Machine-readable code, e.g. `precondition_failed`. */
  readonly code: GatewayErrorCode;
  /** HTTP status. */
  readonly status: number;
  /** True when the same request may succeed later (the SDK already retried it `maxRetries` times). */
  readonly retryable: boolean;
  /** The gateway's audit id of the failed request (absent for `unexpected_response`). */
  readonly auditId: string | undefined;
  /** The gateway's actionable next step. */
  readonly hint: string | undefined;
  /** One entry per violation or detail, as the gateway sent them. */
  readonly details: Record<string, unknown>[] | undefined;
  /** Seconds to wait before a retry, from `retry_after_seconds` or `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;
  /** RFC 6901 pointer to the first offending request member. */
  readonly schemaPointer: string | undefined;
  /** Documentation of the code. */
  readonly docUrl: string | undefined;
  /** `X-Request-Id` of the response. */
  readonly requestId: string | undefined;
  /** HTTP method of the failed request. */
  readonly method: string;
  /** Path of the failed request, relative to the base URL. */
  readonly path: string;

  constructor(init: GatewayErrorInit) {
    super(init.message);
    brand(this, 'GatewayError');
    this.code = init.code;
    this.status = init.status;
    this.retryable = init.retryable;
    this.auditId = init.auditId;
    this.hint = init.hint;
    this.details = init.details;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.schemaPointer = init.schemaPointer;
    this.docUrl = init.docUrl;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
  }

  /** True for a GatewayError from any copy of this SDK. */
  static isGatewayError(value: unknown): value is GatewayError {
    return hasBrand(value, 'GatewayError');
  }

  /** A plain object for logs: the envelope fields, nothing secret. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      retryable: this.retryable,
      audit_id: this.auditId,
      hint: this.hint,
      details: this.details,
      retry_after_seconds: this.retryAfterSeconds,
      schema_pointer: this.schemaPointer,
      doc_url: this.docUrl,
      request_id: this.requestId,
      method: this.method,
      path: this.path,
    };
  }
}

/** Why a request never got an HTTP answer. */
export type ConnectionFailure = 'network' | 'timeout';

/**
 * The request got no HTTP answer: the connection failed or `timeoutMs` passed. Always retryable (every
 * mutation carries an idempotency key); thrown after the SDK's own retries are spent.
 */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  readonly retryable = true;
  /** `network` (DNS, refused, reset) or `timeout`. */
  readonly reason: ConnectionFailure;
  readonly method: string;
  readonly path: string;

  constructor(init: { reason: ConnectionFailure; method: string; path: string; cause?: unknown }) {
    super(
      init.reason === 'timeout'
        ? `${init.method} ${init.path} timed out`
        : `${init.method} ${init.path} failed: no connection to the gateway`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    brand(this, 'ConnectionError');
    this.reason = init.reason;
    this.method = init.method;
    this.path = init.path;
  }

  /** True for a ConnectionError from any copy of this SDK. */
  static isConnectionError(value: unknown): value is ConnectionError {
    return hasBrand(value, 'ConnectionError');
  }

  /** A plain object for logs. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      reason: this.reason,
      method: this.method,
      path: this.path,
    };
  }
}
