import type { CapabilityHandler } from '@agw/capabilities';
import { MAX_UPLOAD_BASE64_LENGTH, type MetaToolDefinition, metaTools } from '@agw/contracts';
import { installationKeyGuard } from '@agw/guard';
import type { Router } from '@koa/router';
import type { Knex } from 'knex';
import type { ParameterizedContext } from 'koa';
import { type KeyCheck, keyedJsonBody } from '../http/key-before-body.js';
import type { GatewayState } from '../http/state.js';
import { createInvokeRuntime, type InvokeRuntimeOptions } from '../invoke/runtime.js';
import type { JobWorker } from '../jobs/worker.js';
import { checkKey } from '../keys/authenticate.js';
import { createCatalogCallerResolver } from '../meta-tools/access.js';
import type { MetaTool, MetaToolAnswer, MetaToolRequest } from '../meta-tools/answer.js';
import { byCapabilityKey } from '../meta-tools/capability-key.js';
import { type CatalogContract, type CatalogVersions, groupVersions } from '../meta-tools/catalog.js';
import { createCursorCodec } from '../meta-tools/cursor.js';
import { describeCapability, resolveCapability } from '../meta-tools/describe.js';
import { dryRun } from '../meta-tools/dry-run.js';
import { invoke } from '../meta-tools/invoke.js';
import { createQuoteCheck, createQuoteCodec } from '../meta-tools/quote.js';
import { searchCapabilities, serializeSearchResponse } from '../meta-tools/search.js';
import { createSearchCache } from '../meta-tools/search-cache.js';
import { buildSearchIndex } from '../meta-tools/search-index.js';
import { type CapabilityResolver, countedCalls } from '../metrics/meta-tool-calls.js';
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
  readonly access: Pick<AccessServices, 'knex' | 'box' | 'idempotency' | 'outbox'> &
    Partial<Pick<AccessServices, 'notices'>>;
  /** Redis, rate limits and logger of the invoke runtime (src/invoke/runtime.ts); defaults when omitted. */
  readonly runtime?: InvokeRuntimeOptions;
  /** The process's job worker: long-running invokes run with this runtime, catalog and handlers. */
  readonly jobs?: JobWorker;
  /** QUOTE_TTL_SECONDS: how long a dry_run's price quote holds (src/meta-tools/quote.ts). */
  readonly quoteTtlSeconds?: number | undefined;
}

/** The four meta-tools, shared by the HTTP routes and the MCP endpoint (src/mcp). */
export type MetaToolHandlers = Readonly<Record<MetaToolDefinition['name'], MetaTool>>;

/**
 * Builds the four meta-tool handlers once: the search index, the version table and the guard chain
 * (with its rate-limit buckets) are built here, not per request, and are the same for every transport.
 *
 * search_capabilities and describe: Both accept an anonymous call (no
 * Authorization header) and a keyed one; a header that is present must hold a valid installation key.
 * dry_run and invoke run the nine-guard chain (src/invoke) and need an installation key.
 */
export function createMetaToolHandlers(
  options: Omit<MetaToolRouteOptions, 'bodyLimitBytes'>,
): MetaToolHandlers {
  return createMetaTools(options).handlers;
}

/** The meta-tool handlers and the key checks their HTTP routes run before reading a body. */
interface MetaTools {
  readonly handlers: MetaToolHandlers;
  /** search_capabilities, describe: no header is anonymous; a header must hold a valid installation key. */
  readonly optionalKey: KeyCheck;
  /** dry_run, invoke: a valid installation key is required (the guard chain checks it again). */
  readonly requiredKey: KeyCheck;
}

function createMetaTools(options: Omit<MetaToolRouteOptions, 'bodyLimitBytes'>): MetaTools {
  const { knex } = options;
  const index = buildSearchIndex(options.catalog);
  const versions = groupVersions(options.catalog);
  const cursors = createCursorCodec(options.access.box);
  const quotes = createQuoteCodec(options.access.box, options.quoteTtlSeconds);
  // Rankings and result items survive requests: the catalog is fixed for the process lifetime.
  const searchCache = createSearchCache(index, cursors);
  const runtime = createInvokeRuntime(knex, {
    ...options.runtime,
    mail: { box: options.access.box, outbox: options.access.outbox },
    ...(options.access.notices === undefined ? {} : { notices: options.access.notices }),
  });
  // Keyed search/describe read key records through the invoke chain's cache (one per process).
  const resolveCatalogCaller = createCatalogCallerResolver(runtime.keys);
  const handlers = byCapabilityKey(options.handlers);
  options.jobs?.attach({ runtime, handlers, contractOf: (id, version) => contractOf(versions, id, version) });
  // Before the body is read: the same guard and cached key records as the chain's first guard, so a
  // valid key costs no extra query and a refused one gets the envelope the chain would have given.
  const installationKey = installationKeyGuard({
    keys: runtime.keys,
    clock: runtime.clock,
    acceptKinds: ['installation'],
  });
  const checkQuote = createQuoteCheck(quotes, installationKey, runtime.clock);
  // A failure after the check (an unknown capability, no idempotency key, a malformed body) is audited
  // as the key's installation (src/http/error-handler.ts).
  const requiredKey: KeyCheck = async (authorization, ctx) => {
    const principal = await checkKey(installationKey, authorization);
    ctx.state.actor = `installation:${principal.installation_id}`;
    return true;
  };
  const optionalKey: KeyCheck = async (authorization, ctx) =>
    authorization === undefined ? false : requiredKey(authorization, ctx);
  const tools: MetaToolHandlers = {
    async search_capabilities(call) {
      const caller = await resolveCatalogCaller(call.headers.authorization);
      const request = validateBody('SearchCapabilitiesRequest', call.body);
      const page = searchCapabilities(index, request, { cursors, scopes: caller.scopes, cache: searchCache });
      // Serialized with the cached result items' text (src/meta-tools/search-cache.ts).
      return { status: 200, body: serializeSearchResponse(page, searchCache) };
    },
    async describe(call) {
      const caller = await resolveCatalogCaller(call.headers.authorization);
      const request = validateBody('DescribeRequest', call.body);
      return { status: 200, body: describeCapability(versions, request, caller.scopes) };
    },
    // Counted per capability and outcome, for both transports, when metrics are on (src/metrics).
    dry_run: countedCalls(runtime.metrics, 'dry_run', capabilityLabel(versions), (call) =>
      dryRun(call, runtime, versions, handlers, quotes),
    ),
    invoke: countedCalls(runtime.metrics, 'invoke', capabilityLabel(versions), (call) =>
      invoke(call, { runtime, versions, handlers, access: options.access, checkQuote }),
    ),
  };
  return { handlers: tools, optionalKey, requiredKey };
}

/** The catalog's capability a call names, as a metric label (no search for near ids). */
function capabilityLabel(versions: CatalogVersions): CapabilityResolver {
  return (id, version) => {
    const listed = versions.byId.get(id);
    if (listed === undefined) return undefined;
    return version === undefined
      ? resolveCapability(versions, id)
      : listed.find((contract) => contract.version === version);
  };
}

/** The catalog's contract of an id and version, or undefined when the catalog no longer lists it. */
function contractOf(versions: CatalogVersions, id: string, version: string): CatalogContract | undefined {
  try {
    return resolveCapability(versions, id, version);
  } catch {
    return undefined;
  }
}

/**
 * The body limit of POST /mcp/dry_run and /mcp/invoke, which carry capability params: the general
 * limit plus the largest param, an upload's base64 content (MAX_UPLOAD_BASE64_LENGTH, 10 MiB decoded).
 * So BODY_LIMIT_BYTES stays the budget for everything around the content, including JSON encoders that
 * escape `/` as `\/`; larger bodies are still refused 413 before they are parsed. The /mcp endpoint
 * keeps BODY_LIMIT_BYTES for a caller with a key (one route for every tool) and 64 KiB without one.
 */
export function paramsBodyLimitBytes(bodyLimitBytes: number): number {
  return bodyLimitBytes + MAX_UPLOAD_BASE64_LENGTH;
}

/**
 * Registers POST /mcp/search_capabilities, /mcp/describe, /mcp/dry_run and /mcp/invoke and returns
 * their handlers, so the MCP endpoint serves the same instances (one chain, one set of rate limits).
 * search and describe keep BODY_LIMIT_BYTES; dry_run and invoke take {@link paramsBodyLimitBytes}.
 * The key is checked before the body is read: dry_run and invoke without a valid key answer 401 at
 * once; an anonymous search or describe gets ANONYMOUS_BODY_LIMIT_BYTES (src/http/key-before-body.ts).
 */
export function registerMetaToolRoutes(
  router: Router<GatewayState>,
  options: MetaToolRouteOptions,
): MetaToolHandlers {
  const { handlers, optionalKey, requiredKey } = createMetaTools(options);
  const body = keyedJsonBody(optionalKey, options.bodyLimitBytes);
  const paramsBody = keyedJsonBody(requiredKey, paramsBodyLimitBytes(options.bodyLimitBytes));
  for (const tool of metaTools) {
    const parse = tool.name === 'dry_run' || tool.name === 'invoke' ? paramsBody : body;
    router.post(tool.path, parse, async (ctx) => answerOn(ctx, await handlers[tool.name](requestOf(ctx))));
  }
  return handlers;
}

/** The header an invoke's quote travels in over HTTP (the body is the spec's, closed to new fields). */
const QUOTE_HEADER = 'Agw-Quote';

/** The HTTP adapter's half: a route's Koa context as a meta-tool call. */
function requestOf(ctx: ParameterizedContext<GatewayState>): MetaToolRequest {
  const { body, requestId, auditId, log } = ctx.state;
  const quote = ctx.get(QUOTE_HEADER);
  return {
    body,
    headers: ctx.headers,
    ip: ctx.ip,
    requestId,
    auditId,
    log,
    transport: 'http',
    ...(quote === '' ? {} : { quote }),
  };
}

/** The HTTP adapter's other half: a meta-tool's answer as the route's response. */
function answerOn(ctx: ParameterizedContext<GatewayState>, answer: MetaToolAnswer): void {
  if (answer.headers !== undefined) ctx.set(answer.headers);
  ctx.status = answer.status;
  // JSON text or stored bytes go out as they are; an object is serialized by Koa.
  if (typeof answer.body === 'string' || Buffer.isBuffer(answer.body)) ctx.type = 'application/json';
  ctx.body = answer.body;
  if (answer.errorCode !== undefined) ctx.state.errorCode = answer.errorCode;
}
