import type { IncomingHttpHeaders } from 'node:http';
import { type ErrorCode, type ErrorEnvelope, errorCodes } from '@agw/contracts';
import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import { recordAuditEvent } from '../audit.js';
import type { Logger } from '../logger.js';
import { renderError } from './error-envelope.js';
import { dependencyUnavailable, GatewayError, isDependencyFailure } from './gateway-error.js';
import { headersWithoutSecrets, type PathRedactor } from './log-path.js';
import { REQUEST_ID_HEADER } from './request-id.js';
import { securityHeaders } from './security-headers.js';
import type { GatewayState } from './state.js';

// Status codes of errors thrown by Koa, @koa/router or http-errors, mapped onto the contracts table.
const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

// 5xx answers never carry the thrown message: it may hold SQL, paths or library names.
const SERVER_MESSAGES: Partial<Record<ErrorCode, string>> = {
  internal_error: 'An unexpected error occurred.',
  dependency_unavailable: 'A backing service is unavailable.',
};

// Headers a failed response keeps from before the failure; everything else set by a handler is dropped.
const KEPT_HEADERS = new Set(
  [REQUEST_ID_HEADER, ...Object.keys(securityHeaders)].map((name) => name.toLowerCase()),
);

/**
 * The one place that turns errors into HTTP: every failure leaves as the contracts' error envelope
 * with the request's audit_id, and an `audit_events` row is written (awaited, bounded) for it. The path
 * in the row and the log goes through `redactPath`, the Referer's too.
 */
export function errorHandler(knex: Knex, redactPath: PathRedactor): Middleware<GatewayState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const failure = await answerFailure(knex, thrown, {
        auditId: ctx.state.auditId,
        requestId: ctx.state.requestId,
        log: ctx.state.log,
        method: ctx.method,
        path: redactPath(ctx.path),
        headers: headersWithoutSecrets(ctx.headers, redactPath),
        actor: ctx.state.actor,
        outcome: ctx.state.auditOutcome,
      });
      for (const name of Object.keys(ctx.response.headers)) {
        if (!KEPT_HEADERS.has(name.toLowerCase())) ctx.remove(name);
      }
      ctx.set(failure.headers);
      ctx.status = failure.status;
      ctx.type = 'application/json';
      ctx.body = failure.body;
      ctx.state.errorCode = failure.code;
    }
  };
}

/** The request a failure happened in, as {@link answerFailure} needs it. */
export interface FailedRequest {
  readonly auditId: string;
  readonly requestId: string;
  /** The request's logger (bound to its request id). */
  readonly log: Logger;
  readonly method: string;
  /** The path with its secrets taken out (a PathRedactor). */
  readonly path: string;
  /** The headers with their secrets taken out (headersWithoutSecrets). */
  readonly headers: IncomingHttpHeaders;
  /** The checked key's `installation:<id>`; `anonymous` when none was checked. */
  readonly actor?: string | undefined;
  /** The audit row's outcome: `failed` unless the refusal is one the protocol expects (`info`). */
  readonly outcome?: 'info' | undefined;
}

/** What a failed request is answered with: the envelope as JSON text, its status and own headers. */
export interface FailureAnswer {
  readonly status: number;
  /** The error's headers (Allow, Retry-After, Connection); the failed response keeps only KEPT_HEADERS besides. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly code: ErrorCode;
}

/**
 * The answer to a request that threw `thrown`: logs a 5xx (with the request, never in the answer) and
 * writes the `audit_events` row (awaited, bounded) before the answer is sent. Used by
 * {@link errorHandler} and by the public routes' dispatch, which answers without Koa.
 */
export async function answerFailure(
  knex: Knex,
  thrown: unknown,
  request: FailedRequest,
): Promise<FailureAnswer> {
  const error = publicError(toGatewayError(thrown));
  const { status, headers, body } = renderError(error, request.auditId);
  if (status >= 500) {
    request.log.error(
      {
        err: thrown,
        audit_id: request.auditId,
        code: error.code,
        request: { method: request.method, path: request.path, headers: request.headers },
      },
      'request failed',
    );
  }
  await recordAuditEvent(knex, request.log, {
    auditId: request.auditId,
    requestId: request.requestId,
    actor: request.actor ?? 'anonymous',
    action: 'http.request',
    outcome: request.outcome ?? 'failed',
    httpStatus: status,
    details: { code: error.code, method: request.method, path: request.path.slice(0, 512) },
  });
  return { status, headers, body: JSON.stringify(body), code: error.code };
}

/**
 * The envelope a client is shown for `error`: a 5xx never carries the thrown message. Shared with the
 * MCP endpoint, whose refusals carry the same envelope as a tool error.
 */
export function publicErrorEnvelope(error: GatewayError, auditId: string): ErrorEnvelope {
  return renderError(publicError(error), auditId).body;
}

/** `error` with a 5xx's message replaced by the table's generic one (it may hold SQL or paths). */
function publicError(error: GatewayError): GatewayError {
  if (errorCodes[error.code].status < 500) return error;
  const message = SERVER_MESSAGES[error.code] ?? 'An unexpected error occurred.';
  return message === error.message ? error : new GatewayError(error.code, { ...error.options, message });
}

/** Normalizes anything thrown into a GatewayError with a code from the contracts table. */
export function toGatewayError(thrown: unknown): GatewayError {
  if (thrown instanceof GatewayError) return thrown;
  if (isDependencyFailure(thrown)) return dependencyUnavailable(thrown);
  const status = (thrown as { status?: unknown } | null)?.status;
  const expose = (thrown as { expose?: unknown } | null)?.expose === true;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'bad_request';
    // http-errors marks 4xx messages as safe to show (expose); anything else gets the table's hint.
    const message = expose && thrown instanceof Error ? thrown.message : errorCodes[code].hint;
    return new GatewayError(code, { message, cause: thrown });
  }
  return new GatewayError('internal_error', { cause: thrown });
}
