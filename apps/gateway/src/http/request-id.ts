import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../logger.js';
import type { GatewayState } from './state.js';

/** The header that carries the request id, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

// Accept a client's id only when it is short and plain, so it is safe in logs and headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id: the client's X-Request-Id when sane, otherwise a fresh UUID v4. */
export function requestIdOf(incoming: string | undefined): string {
  return incoming !== undefined && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * Assigns the request id ({@link requestIdOf}) and a fresh audit id,
 * echoes the request id on every response and binds a child logger to it. Runs first.
 */
export function requestId(logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    const id = requestIdOf(ctx.get(REQUEST_ID_HEADER));
    ctx.state.requestId = id;
    ctx.state.auditId = randomUUID();
    ctx.state.log = logger.child({ request_id: id });
    ctx.set(REQUEST_ID_HEADER, id);
    await next();
  };
}
