import type { Middleware } from 'koa';
import { GatewayError } from './gateway-error.js';
import type { GatewayState } from './state.js';

/**
 * Turns what the router left unanswered into errors: no route → 404 `not_found`; a known path with
 * another method (405, or 501 for a method the router does not know) → 405 `method_not_allowed`
 * keeping the router's Allow header. Sits between the error handler and the router.
 */
export function notFound(): Middleware<GatewayState> {
  return async (ctx, next) => {
    await next();
    if (ctx.status === 405 || ctx.status === 501) {
      const allow = ctx.response.get('Allow');
      throw new GatewayError('method_not_allowed', {
        message: `Method ${ctx.method} is not allowed on this path.`,
        headers: allow ? { Allow: allow } : {},
      });
    }
    if (ctx.status === 404 && ctx.body == null) {
      throw new GatewayError('not_found', { message: 'No endpoint exists at this path.' });
    }
  };
}
