import { type GatewayState, jsonBody } from '@agw/gateway';
import type { Router } from '@koa/router';
import type { Knex } from 'knex';

/** A message full of things a 500 must never show: a path, SQL, a key. */
export const INTERNAL_DETAIL =
  'boom at /srv/app/src/secret.ts:12 SELECT * FROM keys agw_ak_leak.SuperSecretLeak';

/**
 * Failure-injection routes registered through createApp's `extendRouter` hook; they exist only in
 * tests. They sit behind the real middleware, so what they show is production behaviour.
 */
export function testRoutes(options: { bodyLimitBytes: number; knex?: Knex }) {
  return (router: Router<GatewayState>) => {
    router.post('/__test/echo', jsonBody(options.bodyLimitBytes), (ctx) => {
      ctx.body = { received: ctx.state.body };
    });
    router.post('/__test/log-body', jsonBody(options.bodyLimitBytes), (ctx) => {
      ctx.state.log.info({ body: ctx.state.body, headers: ctx.headers }, 'test route saw a body');
      ctx.status = 204;
    });
    router.get('/__test/crash', () => {
      throw new Error(INTERNAL_DETAIL);
    });
    router.get('/__test/query', async (ctx) => {
      await options.knex?.raw('select 1');
      ctx.body = { ok: true };
    });
  };
}
