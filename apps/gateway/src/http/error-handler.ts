import { type ErrorCode, type ErrorEnvelope, errorCodes } from '@agw/contracts';
import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import { recordAuditEvent } from '../audit.js';
import { renderError } from './error-envelope.js';
import { dependencyUnavailable, GatewayError, isDependencyFailure } from './gateway-error.js';
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
 * with the request's audit_id, and an `audit_events` row is written (awaited, bounded) for it.
 */
export function errorHandler(knex: Knex): Middleware<GatewayState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = publicError(toGatewayError(thrown));
      const { status, headers, body } = renderError(error, ctx.state.auditId);
      const internal = status >= 500;
      if (internal) {
        ctx.state.log.error(
          {
            err: thrown,
            audit_id: ctx.state.auditId,
            code: error.code,
            request: { method: ctx.method, path: ctx.path, headers: ctx.headers },
          },
          'request failed',
        );
      }
      for (const name of Object.keys(ctx.response.headers)) {
        if (!KEPT_HEADERS.has(name.toLowerCase())) ctx.remove(name);
      }
      ctx.set(headers);
      ctx.status = status;
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(body);
      ctx.state.errorCode = error.code;

      await recordAuditEvent(knex, ctx.state.log, {
        auditId: ctx.state.auditId,
        requestId: ctx.state.requestId,
        actor: 'anonymous',
        action: 'http.request',
        outcome: 'failed',
        httpStatus: status,
        details: { code: error.code, method: ctx.method, path: ctx.path.slice(0, 512) },
      });
    }
  };
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
