import type { Middleware } from 'koa';
import { type Logger, sanitizeForLog } from '../logger.js';
import { type GatewayMetrics, secondsSince } from '../metrics/gateway-metrics.js';
import type { PathRedactor } from './log-path.js';
import type { GatewayState } from './state.js';

/** What the log line of one answered request says. */
export interface AnsweredRequest {
  readonly method: string;
  /** The route's declared path, or null when none answered (404, 405). */
  readonly route: string | null;
  /** The path as requested, without the query string (which could carry secrets). */
  readonly path: string;
  readonly status: number;
  /** process.hrtime.bigint() when the request arrived. */
  readonly started: bigint;
  readonly errorCode?: string | undefined;
  readonly userAgent?: string | undefined;
}

/**
 * Writes the one structured line of an answered request: method, matched route, path (`redactPath` takes
 * out the secret segments the routes declare, matched or not), status, duration, the error code if it
 * failed, the user agent. Used by the Koa middleware below and the public routes' dispatch alike.
 */
export function logRequest(log: Logger, redactPath: PathRedactor, request: AnsweredRequest): void {
  const durationMs = Number(process.hrtime.bigint() - request.started) / 1e6;
  log.info(
    {
      method: request.method,
      route: request.route,
      path: sanitizeForLog(redactPath(request.path)).slice(0, 512),
      status: request.status,
      duration_ms: Math.round(durationMs * 100) / 100,
      error_code: request.errorCode,
      user_agent: sanitizeForLog(request.userAgent ?? '').slice(0, 256) || undefined,
    },
    'request',
  );
}

/** The request in the metrics (src/metrics): by method, route template and status class, timed. */
export function countRequest(metrics: GatewayMetrics | undefined, request: AnsweredRequest): void {
  metrics?.request(request.method, request.route, request.status, secondsSince(request.started));
}

/** {@link logRequest} (and {@link countRequest}) for every request Koa answers, once it is answered. */
export function requestLog(redactPath: PathRedactor, metrics?: GatewayMetrics): Middleware<GatewayState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const answered = {
        method: ctx.method,
        route: typeof route === 'string' ? route : null,
        path: ctx.path,
        status: ctx.status,
        started,
        errorCode: ctx.state.errorCode,
        userAgent: ctx.get('user-agent'),
      };
      countRequest(metrics, answered);
      logRequest(ctx.state.log, redactPath, answered);
    }
  };
}
