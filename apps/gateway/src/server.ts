import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type CapabilityDomain, capabilityDomains } from '@agw/capabilities';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { ensureOperatorKey } from './admin/bootstrap-operator-key.js';
import { type AppDependencies, createApp } from './app.js';
import { type AuditSealer, createAuditSealer } from './audit-chain/sealer.js';
import { withTimeout } from './checks/with-timeout.js';
import { domainSettingsOf, type GatewayConfig, redactUrl } from './config.js';
import { preparePrivateDataDir, tightenTree } from './data-dir.js';
import { type Database, openDatabase } from './db/knex.js';
import { runMigrations } from './db/migrate.js';
import { servePublicRoutesFirst } from './domains/public-dispatch.js';
import { type RunningDomains, startDomains } from './domains/services.js';
import { createDrain, type Drain } from './http/drain.js';
import { handleClientErrors, httpTimeoutsOf, serverTimeoutOptions } from './http/server-timeouts.js';
import { rehashLegacyIdempotencyKeys } from './idempotency/legacy-keys.js';
import { createGatewayRateLimiter } from './invoke/rate-limiter.js';
import { createJobWorker, type JobWorker, type JobWorkerOptions } from './jobs/worker.js';
import { createLogger, type Logger } from './logger.js';
import { startMetrics } from './metrics/start.js';
import { type AccessServices, createAccessServices } from './onboarding/services.js';
import type { PeriodicTask } from './periodic.js';
import { createChargeRollup } from './ports/wallet-rollup.js';
import { closeRedis, createRedis, firstConnection } from './redis.js';
import { startTracing } from './tracing/start.js';
import type { Tracing } from './tracing/tracing.js';

/** Options of {@link startGateway}. */
export interface StartOptions {
  /** The logger to use; one is created from config.logLevel when omitted. */
  readonly logger?: Logger;
  /**
   * How long close() waits for in-flight requests before cutting connections, then for each step of
   * the background work and for the database to close (default SHUTDOWN_GRACE_MS).
   */
  readonly shutdownTimeoutMs?: number;
  /** See {@link AppDependencies.extendRouter}; for tests and embedding. */
  readonly extendRouter?: AppDependencies['extendRouter'];
  /** See {@link AppDependencies.catalog}; the benchmark pads it with synthetic capabilities. */
  readonly catalog?: AppDependencies['catalog'];
  /** See {@link AppDependencies.handlers}; tests inject capabilities the product does not have. */
  readonly handlers?: AppDependencies['handlers'];
  /** The long-running invoke worker (poll interval, lease, `enabled: false` to run none here). */
  readonly jobs?: JobWorkerOptions;
  /**
   * The domains whose services (public routes, timed tasks) start in this process; every domain of
   * @agw/capabilities when omitted. Tests add a domain the product does not have.
   */
  readonly domains?: readonly CapabilityDomain[];
}

/** A running gateway. */
export interface GatewayHandle {
  /** The URL the server listens on, e.g. http://127.0.0.1:8080 (the real port when PORT=0). */
  readonly url: string;
  /** With METRICS_PORT: the metrics listener's URL (scrape `${metricsUrl}/metrics`). */
  readonly metricsUrl?: string | undefined;
  readonly server: Server;
  /** The gateway's database (for tests and operator tooling). */
  readonly knex: Knex;
  /**
   * The ordered shutdown: `/health/ready` answers 503, the server stops accepting, in-flight requests
   * finish (bounded by shutdownTimeoutMs) with `Connection: close`, the job worker finishes its job and
   * claims no other, the domains, audit sealer and mail outbox flush (each bounded by shutdownTimeoutMs
   * again), then Redis and the database close (bounded too). Safe to call twice.
   */
  close(): Promise<void>;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
const REDIS_FIRST_CONNECT_MS = 3000;

/**
 * Opens the database, applies migrations, connects Redis, and listens on config.host:config.port.
 * Sets the process umask to 077 first, and throws a ConfigError (naming the path) when DATA_DIR or
 * what it holds is open to other users, unless DATA_DIR_ALLOW_SHARED=true (src/data-dir.ts).
 *
 * @example
 * const gateway = await startGateway(loadConfig());
 * process.once('SIGTERM', () => void gateway.close());
 */
export async function startGateway(
  config: GatewayConfig,
  options: StartOptions = {},
): Promise<GatewayHandle> {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  // Before anything is created under DATA_DIR: umask 077, and no start on a folder others can open.
  preparePrivateDataDir(config);
  if (config.dataDirAllowShared) {
    logger.warn({ data_dir: config.dataDir }, 'DATA_DIR_ALLOW_SHARED=true: the data folder is not checked');
  }
  // OTEL_* variables with an OTLP endpoint: OpenTelemetry traces (src/tracing); nothing loaded without.
  const tracing = await startTracing(logger);
  const database = openDatabase(config, logger);
  // A span per SQL statement of a request, on both engines (src/db/pool.ts).
  if (tracing !== undefined) database.pool.hooks.span = tracing.statement;
  let redis: Redis | undefined;
  let server: Server | undefined;
  let access: AccessServices | undefined;
  let sealer: AuditSealer | undefined;
  let rollup: PeriodicTask | undefined;
  let jobs: JobWorker | undefined;
  let domains: RunningDomains | undefined;
  try {
    const { applied } = await runMigrations(database.knex);
    if (database.driver === 'pglite') tightenTree(join(config.dataDir, 'pglite'));
    logger.info(
      { driver: database.driver, location: database.location, applied },
      applied.length > 0 ? `applied ${applied.length} migration(s)` : 'database schema up to date',
    );
    await ensureOperatorKey(database.knex, config.dataDir, logger);
    if (config.redisUrl) {
      logger.info({ redis: redactUrl(config.redisUrl) }, 'redis configured');
      redis = createRedis(config.redisUrl, logger, config.redisKeyPrefix);
      await firstConnection(redis, REDIS_FIRST_CONNECT_MS);
    }
    // The app is attached once the real port is known (PORT=0), before any request can be read.
    let handle: RequestListener | undefined;
    const timeouts = httpTimeoutsOf(config);
    server = createServer(serverTimeoutOptions(timeouts));
    const drain = createDrain(server);
    server.on(
      'request',
      drain.track((request, response) => handle?.(request, response)),
    );
    handleClientErrors(server, logger, timeouts);
    await listen(server, config.port, config.host);
    const url = serverUrl(server);
    const effective = Object.freeze({
      ...config,
      publicBaseUrl: effectiveBaseUrl(config.publicBaseUrl, url),
    });
    access = createAccessServices({ config: effective, logger, knex: database.knex });
    access.start();
    // Keys stored in clear by an earlier version become hashes before the first request is served.
    await rehashLegacyIdempotencyKeys(database.knex, access.box, logger);
    sealer = createAuditSealer({
      knex: database.maintenance,
      logger,
      intervalMs: config.auditSealIntervalMs,
    });
    sealer.start();
    rollup = createChargeRollup({ knex: database.maintenance, logger });
    rollup.start();
    const running = options.domains ?? capabilityDomains;
    domains = startDomains(running, {
      knex: database.knex,
      mail: { box: access.box, outbox: access.outbox },
      rateLimiter: createGatewayRateLimiter({ redis, logger }),
      publicBaseUrl: effective.publicBaseUrl,
      logger,
      settings: domainSettingsOf(running, config),
    });
    // METRICS_PORT: a listener of its own, closed with the main one (src/metrics/start.ts).
    const observed = await startMetrics(config, { database, redis, domains, logger });
    if (observed !== undefined) server.once('close', () => void observed.server.close());
    jobs = createJobWorker(database.knex, logger, {
      retentionHours: config.jobRetentionHours,
      ...options.jobs,
    });
    const app = createApp({
      config: effective,
      logger,
      database,
      redis,
      access,
      extendRouter: options.extendRouter,
      catalog: options.catalog,
      handlers: options.handlers,
      jobs,
      domainRoutes: domains.routes,
      metrics: observed?.metrics,
      draining: () => drain.draining,
      tracing,
    });
    // The domains' public routes (a page view, a booking page) are answered before Koa, the same way.
    handle = servePublicRoutesFirst(domains.routes, app.callback(), {
      logger,
      knex: database.knex,
      metrics: observed?.metrics,
      tracing,
    });
    jobs.start();
    logger.info({ url, public_base_url: effective.publicBaseUrl }, `Agent Gateway listening on ${url}`);
    const listening = server;
    return {
      url,
      metricsUrl: observed?.server.url,
      server: listening,
      knex: database.knex,
      close: once(() =>
        shutdown(
          { drain, database, redis, logger, access, sealer, rollup, jobs, domains, tracing },
          options.shutdownTimeoutMs ?? config.shutdownGraceMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
        ),
      ),
    };
  } catch (error) {
    if (server?.listening) server.close();
    await jobs?.stop();
    await domains?.stop();
    await sealer?.stop();
    await rollup?.stop();
    await access?.stop();
    if (redis) await closeRedis(redis);
    await database.close().catch(() => {});
    await tracing?.shutdown();
    throw error;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * A base URL derived from PORT=0 names no real port; replace it with the address actually bound.
 * An explicit PUBLIC_BASE_URL (any real port) is kept as given.
 */
function effectiveBaseUrl(configured: string, listening: string): string {
  return new URL(configured).port === '0' ? listening : configured;
}

function serverUrl(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

interface Resources {
  readonly drain: Drain;
  readonly database: Database;
  readonly redis: Redis | undefined;
  readonly logger: Logger;
  readonly access?: AccessServices | undefined;
  readonly sealer?: AuditSealer | undefined;
  readonly rollup?: PeriodicTask | undefined;
  readonly jobs?: JobWorker | undefined;
  readonly domains?: RunningDomains | undefined;
  readonly tracing?: Tracing | undefined;
}

async function shutdown(resources: Resources, timeoutMs: number): Promise<void> {
  const { drain, database, redis, logger, access, sealer, rollup, jobs, domains, tracing } = resources;
  logger.info('shutting down: unready, no new connections, waiting for in-flight requests');
  const drained = await drain.begin(timeoutMs);
  if (!drained) {
    logger.warn({ timeout_ms: timeoutMs }, 'in-flight requests did not finish in time; connections cut');
  }
  // The job in progress finishes and commits (its audit rows are sealed next); no new job is claimed.
  // The domains' last flush (buffered events, say) lands before the sealer's last run and the database
  // close; the sealer seals the rows the last requests wrote. Each step gets as long as the requests
  // did; one still busy then is left behind (logged) and the next goes on, so a stuck job or mail never
  // holds close() (or an embedding process) — and the steps after it still run before the close.
  for (const step of [jobs, domains, sealer, rollup, access]) {
    if (step !== undefined && !(await stoppedWithin(step.stop(), timeoutMs, logger))) {
      logger.warn({ timeout_ms: timeoutMs }, 'background work did not stop in time; going on without it');
    }
  }
  if (redis) await closeRedis(redis);
  // A query a step left behind still holds its connection: the pool's end would wait for it.
  if (!(await stoppedWithin(database.close(), timeoutMs, logger))) {
    logger.warn(
      { timeout_ms: timeoutMs },
      'database connections still in use; left to close with the process',
    );
  }
  // The spans of the last requests are exported before the process may exit.
  await tracing?.shutdown();
  logger.info('Agent Gateway stopped');
}

/**
 * True once `stopping` has settled within `milliseconds`, false while it still runs then. A failure,
 * now or after the bound, is logged: shutdown goes on either way.
 */
function stoppedWithin(stopping: Promise<void>, milliseconds: number, logger: Logger): Promise<boolean> {
  const settled = stopping.then(
    () => true,
    (error: unknown) => {
      logger.warn({ err: error }, 'background work failed while stopping');
      return true;
    },
  );
  return withTimeout(settled, milliseconds, false);
}

function once(action: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= action();
    return running;
  };
}
