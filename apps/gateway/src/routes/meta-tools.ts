import type { CapabilityHandler } from '@agw/capabilities';
import type { Router } from '@koa/router';
import type { Knex } from 'knex';
import { jsonBody } from '../http/body.js';
import type { GatewayState } from '../http/state.js';
import { createInvokeRuntime } from '../invoke/chain.js';
import { dryRun } from '../invoke/dry-run.js';
import { invoke } from '../invoke/invoke.js';
import { resolveCatalogCaller } from '../meta-tools/access.js';
import { type CatalogContract, groupVersions } from '../meta-tools/catalog.js';
import { createCursorCodec } from '../meta-tools/cursor.js';
import { describeCapability } from '../meta-tools/describe.js';
import { searchCapabilities } from '../meta-tools/search.js';
import { buildSearchIndex } from '../meta-tools/search-index.js';
import type { AccessServices } from '../onboarding/services.js';
import { validateBody } from '../onboarding/validate.js';

/** What the search_capabilities and describe routes need. */
export interface MetaToolRouteOptions {
  readonly knex: Knex;
  readonly bodyLimitBytes: number;
  /** The capabilities listed by search and describe. */
  readonly catalog: readonly CatalogContract[];
  /** The handlers dry_run and invoke run, by id and version. */
  readonly handlers: readonly CapabilityHandler<never>[];
  /** The idempotency store and secret box of the access routes (mutating invokes, search cursors). */
  readonly access: Pick<AccessServices, 'knex' | 'box' | 'idempotency'>;
}

/**
 * Registers POST /mcp/search_capabilities, /mcp/describe, /mcp/dry_run and /mcp/invoke. The last two
 * run the nine-guard chain (src/invoke) and need an installation key.
 *
 * search_capabilities and describe: Both accept an anonymous call (no
 * Authorization header) and a keyed one; a header that is present must hold a valid installation key.
 * The search index and the version table are built here, once, not per request.
 */
export function registerMetaToolRoutes(router: Router<GatewayState>, options: MetaToolRouteOptions): void {
  const { knex } = options;
  const index = buildSearchIndex(options.catalog);
  const versions = groupVersions(options.catalog);
  const cursors = createCursorCodec(options.access.box);
  const body = jsonBody(options.bodyLimitBytes);

  router.post('/mcp/search_capabilities', body, async (ctx) => {
    const caller = await resolveCatalogCaller(knex, ctx.headers.authorization);
    const request = validateBody('SearchCapabilitiesRequest', ctx.state.body);
    ctx.body = searchCapabilities(index, request, { cursors, scopes: caller.scopes });
  });

  router.post('/mcp/describe', body, async (ctx) => {
    const caller = await resolveCatalogCaller(knex, ctx.headers.authorization);
    const request = validateBody('DescribeRequest', ctx.state.body);
    ctx.body = describeCapability(versions, request, caller.scopes);
  });

  const runtime = createInvokeRuntime(knex);
  const handlers = new Map(
    options.handlers.map((handler) => [`${handler.contract.id}@${handler.contract.version}`, handler]),
  );
  router.post('/mcp/dry_run', body, (ctx) => dryRun(ctx, runtime, versions));
  router.post('/mcp/invoke', body, (ctx) =>
    invoke(ctx, { runtime, versions, handlers, access: options.access }),
  );
}
