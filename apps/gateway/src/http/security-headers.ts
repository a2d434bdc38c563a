import type { Middleware } from 'koa';
import type { GatewayState } from './state.js';

/** Headers every response carries; the error handler keeps them when it rewrites a failed response. */
export const securityHeaders: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  // Responses are per-request API answers (health, errors, later keys): never cache them.
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

/** Sets {@link securityHeaders} before anything else can answer. */
export function setSecurityHeaders(): Middleware<GatewayState> {
  return async (ctx, next) => {
    ctx.set(securityHeaders);
    await next();
  };
}
