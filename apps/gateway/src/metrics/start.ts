import type { Redis } from 'ioredis';
import type { GatewayConfig } from '../config.js';
import type { Database } from '../db/knex.js';
import type { RunningDomains } from '../domains/services.js';
import type { Logger } from '../logger.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { registerMachinery } from './machinery.js';
import { type MetricsServer, startMetricsServer } from './metrics-server.js';

/** The metrics of a running gateway and the listener Prometheus scrapes. */
export interface RunningMetrics {
  readonly metrics: GatewayMetrics;
  readonly server: MetricsServer;
}

/**
 * With METRICS_PORT set: the gateway's metrics, the pool's statements timed, the machinery read at
 * scrape time, served on METRICS_HOST:METRICS_PORT. Without it: undefined, and nothing is recorded
 * anywhere (every hook is skipped).
 */
export async function startMetrics(
  config: Pick<GatewayConfig, 'metricsPort' | 'metricsHost'>,
  sources: {
    readonly database: Database;
    readonly redis: Redis | undefined;
    readonly domains: RunningDomains;
    readonly logger: Logger;
  },
): Promise<RunningMetrics | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const metrics = new GatewayMetrics();
  const { pool } = sources.database;
  pool.hooks.statement = metrics.statement;
  metrics.publicRoutes(sources.domains.routes.map(({ route }) => route.path));
  registerMachinery(metrics, { pool, redis: sources.redis, domainStats: sources.domains.stats });
  const server = await startMetricsServer(metrics, {
    host: config.metricsHost ?? '127.0.0.1',
    port: config.metricsPort,
    logger: sources.logger,
  });
  return { metrics, server };
}
