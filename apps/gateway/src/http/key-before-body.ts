import type { Context, Middleware } from 'koa';
import { jsonBody } from './body.js';
import { GatewayError } from './gateway-error.js';
import type { GatewayState } from './state.js';

/**
 * The body limit of a caller without a key (no Authorization header on a route that allows that, such
 * as /register, search_capabilities and describe): 64 KiB, far above any such request (the largest is
 * a search query or a registration), far below BODY_LIMIT_BYTES and the upload-sized limit of
 * dry_run/invoke. Someone without a key cannot make the server buffer megabytes (issue 12, finding 3).
 */
export const ANONYMOUS_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Checks the Authorization header of a request before its body is read. Resolves `true` for a valid
 * key, `false` for an anonymous caller the route allows; throws the route's usual 401/403 GatewayError
 * for a missing key the route requires or for a key that is refused.
 */
export type KeyCheck = (
  authorization: string | undefined,
  ctx: Context & { state: GatewayState },
) => Promise<boolean>;

/** The smaller of the configured limit and {@link ANONYMOUS_BODY_LIMIT_BYTES}. */
export function anonymousBodyLimit(limitBytes: number): number {
  return Math.min(limitBytes, ANONYMOUS_BODY_LIMIT_BYTES);
}

/**
 * {@link jsonBody} behind a key check: the key is checked first, from the headers alone, and only then
 * is the body read — with `limitBytes` for an authenticated caller and
 * {@link ANONYMOUS_BODY_LIMIT_BYTES} for an anonymous one. A refused key answers at once, without
 * reading the body (see {@link refusedBeforeBody}).
 *
 * @example
 * router.post('/mcp/invoke', keyedJsonBody(requireInstallationKey, limit), handler);
 */
export function keyedJsonBody(check: KeyCheck, limitBytes: number): Middleware<GatewayState> {
  const authenticatedBody = jsonBody(limitBytes);
  const anonymousBody = jsonBody(anonymousBodyLimit(limitBytes));
  return async (ctx, next) => {
    let authenticated: boolean;
    try {
      authenticated = await check(ctx.get('authorization') || undefined, ctx);
    } catch (thrown) {
      throw refusedBeforeBody(ctx, thrown);
    }
    await (authenticated ? authenticatedBody : anonymousBody)(ctx, next);
  };
}

/**
 * A refusal answered before the body was read. When a body is still on its way, the answer says
 * `Connection: close`: otherwise Node would read (and drop) the whole unread body to keep the
 * connection alive, which is what a caller without a key must not be able to make the server do.
 */
export function refusedBeforeBody(ctx: Context, thrown: unknown): unknown {
  if (!(thrown instanceof GatewayError) || !hasBody(ctx)) return thrown;
  return new GatewayError(thrown.code, {
    ...thrown.options,
    headers: { ...thrown.options.headers, Connection: 'close' },
  });
}

function hasBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}
