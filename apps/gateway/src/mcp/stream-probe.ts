import type { Middleware } from 'koa';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';

const PROBES = new Set(['GET', 'HEAD', 'DELETE']);

/**
 * Marks the 405 of an MCP client's GET /mcp (it asks for a server-sent event stream; HEAD alike) and
 * DELETE /mcp (it ends a session) as the answer the protocol expects: this stateless server keeps no
 * stream and no session, the Streamable HTTP transport allows 405 for both, and every client asks.
 * Its audit row says `info`, not `failed`, so the failures stay what an operator has to look at.
 */
export function mcpStreamProbe(): Middleware<GatewayState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const probe = ctx.path === '/mcp' && PROBES.has(ctx.method);
      if (probe && thrown instanceof GatewayError && thrown.code === 'method_not_allowed') {
        ctx.state.auditOutcome = 'info';
      }
      throw thrown;
    }
  };
}
