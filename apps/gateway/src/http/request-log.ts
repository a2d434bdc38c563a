import type { Middleware } from 'koa';
import { sanitizeForLog } from '../logger.js';
import type { PathRedactor } from './log-path.js';
import type { GatewayState } from './state.js';

/**
 * Writes one structured line per request once it is answered: method, matched route, path (never the
 * query string, which could carry secrets; `redactPath` takes out the secret segments the routes declare,
 * matched or not), status, duration and the error code if it failed.
 */
export function requestLog(redactPath: PathRedactor): Middleware<GatewayState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      ctx.state.log.info(
        {
          method: ctx.method,
          route: typeof route === 'string' ? route : null,
          path: sanitizeForLog(redactPath(ctx.path)).slice(0, 512),
          status: ctx.status,
          duration_ms: Math.round(durationMs * 100) / 100,
          error_code: ctx.state.errorCode,
          user_agent: sanitizeForLog(ctx.get('user-agent')).slice(0, 256) || undefined,
        },
        'request',
      );
    }
  };
}
