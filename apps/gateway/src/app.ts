import { type CapabilityHandler, capabilityHandlers } from '@agw/capabilities';
import { Router } from '@koa/router';
import type { Redis } from 'ioredis';
import Koa from 'koa';
import { approvalFacts } from './admin/approval-details.js';
import type { GatewayConfig } from './config.js';
import { registerConsoleRoutes } from './console/routes.js';
import type { Database } from './db/knex.js';
import { buildDiscoveryDocuments, type DiscoveryDocuments } from './discovery-documents.js';
import type { DomainRoute } from './domains/services.js';
import { errorHandler } from './http/error-handler.js';
import { secretPathRedactor } from './http/log-path.js';
import { notFound } from './http/not-found.js';
import { requestId } from './http/request-id.js';
import { requestLog } from './http/request-log.js';
import { setSecurityHeaders } from './http/security-headers.js';
import type { GatewayState } from './http/state.js';
import { createGatewayRateLimiter } from './invoke/rate-limiter.js';
import { egressOf, rateLimitsOf } from './invoke/runtime.js';
import type { JobWorker } from './jobs/worker.js';
import { accessStateSettled } from './keys/state-cache.js';
import type { Logger } from './logger.js';
import { registerMcpRoutes } from './mcp/routes.js';
import { mcpStreamProbe } from './mcp/stream-probe.js';
import type { CatalogContract } from './meta-tools/catalog.js';
import type { GatewayMetrics } from './metrics/gateway-metrics.js';
import { type AccessServices, createAccessServices } from './onboarding/services.js';
import { registerAccessRoutes } from './routes/access.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerDiscoveryRoutes } from './routes/discovery.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerMetaToolRoutes } from './routes/meta-tools.js';
import type { Tracing } from './tracing/tracing.js';

/** Everything the Koa app is composed from; the caller owns their lifecycle. */
export interface AppDependencies {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  readonly database: Database;
  /** The Redis client when REDIS_URL is set. */
  readonly redis?: Redis | undefined;
  /** Prebuilt discovery bodies; built from config.publicBaseUrl when omitted. */
  readonly documents?: DiscoveryDocuments;
  /**
   * Adds routes after the built-in ones, behind the same middleware (request id, logging, error
   * envelope, audit). Production passes nothing; tests use it for failure-injection routes.
   */
  readonly extendRouter?: (router: Router<GatewayState>) => void;
  /** The access routes' services (secret, idempotency, outbox); built from config when omitted. */
  readonly access?: AccessServices;
  /**
   * The capabilities search_capabilities, describe, dry_run and invoke know; when omitted, the
   * contracts of the handlers (only capabilities that can run are listed).
   */
  readonly catalog?: readonly CatalogContract[];
  /** The handlers invoke runs; `capabilityHandlers` of @agw/capabilities when omitted. */
  readonly handlers?: readonly CapabilityHandler<never>[];
  /**
   * The job worker that runs long-running invokes (the caller starts and stops it); without one, such
   * invokes are accepted and wait for a process that has a worker.
   */
  readonly jobs?: JobWorker;
  /**
   * The public routes of the domains started in this process (src/domains/services.ts: booking pages,
   * event ingestion): listed in /openapi.json, their secret path segments redacted in the log. They are
   * served before this app, by src/domains/public-dispatch.ts (startGateway mounts it), not by Koa.
   */
  readonly domainRoutes?: readonly DomainRoute[];
  /** Counts and times requests and runs (METRICS_PORT set, src/metrics); nothing recorded without. */
  readonly metrics?: GatewayMetrics | undefined;
  /** Spans per request, guard, handler, statement and egress call (OTEL_* set, src/tracing). */
  readonly tracing?: Tracing | undefined;
  /** True once the process shuts down (startGateway): `/health/ready` then answers 503. */
  readonly draining?: () => boolean;
}

/** The gateway's Koa application type. */
export type GatewayApp = Koa<GatewayState>;

/**
 * Composes the gateway's Koa app. Never listens: call `app.callback()` or use `startGateway`.
 *
 * Middleware order: request id → request log → security headers → error handler → not found → router.
 */
export function createApp(dependencies: AppDependencies): GatewayApp {
  const { config, logger, database } = dependencies;
  const app = new Koa<GatewayState>({ proxy: false });
  // Errors are answered by the error handler; this only sees failures while writing a response.
  app.on('error', (error: unknown) => logger.error({ err: error }, 'response stream failed'));

  const handlers = dependencies.handlers ?? capabilityHandlers;
  const domainRoutes = dependencies.domainRoutes ?? [];
  const catalog = dependencies.catalog ?? handlers.map((handler) => handler.contract);
  const router = new Router<GatewayState>();
  registerDiscoveryRoutes(router, {
    documents:
      dependencies.documents ??
      buildDiscoveryDocuments(config.publicBaseUrl, { capabilities: catalog, publicRoutes: domainRoutes }),
    publicBaseUrl: config.publicBaseUrl,
    draining: dependencies.draining ?? (() => false),
    health: {
      knex: database.knex,
      driver: database.driver,
      redis: dependencies.redis,
      smtpUrl: config.smtpUrl,
      dataDir: config.dataDir,
    },
  });
  const access = dependencies.access ?? createAccessServices({ config, logger, knex: database.knex });
  registerAccessRoutes(router, {
    services: access,
    bodyLimitBytes: config.bodyLimitBytes,
  });
  // The approvals' capability facts, for the admin API and the console alike.
  const facts = approvalFacts(access.box, catalog, handlers);
  registerAdminRoutes(router, { knex: database.knex, bodyLimitBytes: config.bodyLimitBytes, facts });
  // The operator console's pages at /console (src/console).
  registerConsoleRoutes(router, {
    knex: database.knex,
    box: access.box,
    catalog,
    facts,
    publicBaseUrl: config.publicBaseUrl,
    rateLimiter: createGatewayRateLimiter({ redis: dependencies.redis, logger }),
  });
  const metaTools = registerMetaToolRoutes(router, {
    knex: database.knex,
    bodyLimitBytes: config.bodyLimitBytes,
    catalog,
    handlers,
    access,
    quoteTtlSeconds: config.quoteTtlSeconds,
    runtime: {
      redis: dependencies.redis,
      logger,
      rateLimits: rateLimitsOf(config),
      egress: egressOf(config),
      publicBaseUrl: config.publicBaseUrl,
      tracing: dependencies.tracing,
      metrics: dependencies.metrics,
    },
    jobs: dependencies.jobs,
  });
  registerJobRoutes(router, { knex: database.knex });
  // MCP Streamable HTTP at /mcp: the same meta-tool handlers, guard chain and audit.
  registerMcpRoutes(router, {
    knex: database.knex,
    publicBaseUrl: config.publicBaseUrl,
    bodyLimitBytes: config.bodyLimitBytes,
    metaTools,
  });
  dependencies.extendRouter?.(router);

  // Secret path segments (a booking link's) are redacted wherever the domains' routes declare them.
  const redactPath = secretPathRedactor(domainRoutes.map(({ route }) => route.path));
  app.use(requestId(logger));
  // The request's span, its trace id in every log line of the request (so before the request log).
  if (dependencies.tracing !== undefined) app.use(dependencies.tracing.middleware);
  app.use(requestLog(redactPath, dependencies.metrics));
  app.use(setSecurityHeaders());
  app.use(errorHandler(database.knex, redactPath));
  app.use(mcpStreamProbe());
  app.use(notFound());
  // Holds a response that changed a key or installation until every instance dropped its cache.
  app.use(accessStateSettled());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
