import type { Middleware } from 'koa';
import { sanitizeForLog } from '../logger.js';
import { pathWithoutSecrets } from './log-path.js';
import type { GatewayState } from './state.js';

/**
 * Writes one structured line per request once it is answered: method, matched route, path (never the
 * query string, which could carry secrets, nor a route's `secret` parameter), status, duration and the error code if it failed.
 */
export function requestLog(): Middleware<GatewayState> {
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
          path: sanitizeForLog(
            pathWithoutSecrets(ctx.path, (ctx as { params?: Record<string, string> }).params),
          ).slice(0, 512),
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
