import { isUtf8 } from 'node:buffer';
import type { PublicRequest, PublicResponse, PublicRoute } from '@agw/capabilities';
import type { Router } from '@koa/router';
import type { Context } from 'koa';
import { readBodyBytes } from '../http/body.js';
import { GatewayError } from '../http/gateway-error.js';
import { ANONYMOUS_BODY_LIMIT_BYTES } from '../http/key-before-body.js';
import type { GatewayState } from '../http/state.js';
import { invalidUtf8Offset } from '../http/strict-utf8.js';
import type { DomainRoute } from './services.js';

const EMPTY = new Uint8Array(0);

/**
 * Mounts the domains' public routes (no installation key) behind the gateway's middleware (a request
 * that matches one exactly is answered before Koa, by src/domains/public-dispatch.ts, the same way): a thrown
 * error becomes the error envelope (500 without details), the body is read up to the route's limit
 * (64 KiB by default, 413 above) and must be UTF-8 (every public route takes text: JSON, a form, a
 * beacon), so a route can decode it without a failure path of its own.
 */
export function registerPublicRoutes(router: Router<GatewayState>, routes: readonly DomainRoute[]): void {
  for (const { route } of routes) {
    router.register(route.path, [route.method], async (ctx) => {
      const response = await route.handle(await publicRequest(ctx, route));
      answer(ctx, response);
    });
  }
}

async function publicRequest(ctx: Context, route: PublicRoute): Promise<PublicRequest> {
  const body =
    route.method === 'POST'
      ? await readBodyBytes(ctx, route.bodyLimitBytes ?? ANONYMOUS_BODY_LIMIT_BYTES)
      : EMPTY;
  utf8Body(body);
  const state = ctx.state as GatewayState;
  return {
    params: { ...(ctx.params as Record<string, string>) },
    query: new URLSearchParams(ctx.querystring),
    headers: ctx.headers as Record<string, string | undefined>,
    body,
    clientAddress: ctx.request.ip,
    requestId: state.requestId,
  };
}

/** Refuses a body that is not UTF-8 (400, naming the offset of the first bad byte). */
export function utf8Body(body: Uint8Array): void {
  // A check without decoding: the route decodes the body itself.
  if (!isUtf8(body)) {
    throw new GatewayError('bad_request', {
      message: `The request body is not valid UTF-8 (byte offset ${invalidUtf8Offset(body)}).`,
    });
  }
}

function answer(ctx: Context, response: PublicResponse): void {
  const { body } = response;
  if (typeof body === 'string') ctx.body = body;
  else if (body instanceof Uint8Array) ctx.body = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  else if (body === undefined || body === null)
    ctx.body = null; // an empty body, not Koa's status text
  else {
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(body);
  }
  // After the body (assigning one sets 200 or 204), before the headers.
  ctx.status = response.status;
  // Last, so a route's own Content-Type or Content-Security-Policy wins over the defaults.
  if (response.headers) ctx.set({ ...response.headers });
}
