import { INTERFACE_VERSION } from '@agw/contracts';
import type { Router } from '@koa/router';
import {
  createHealthProbe,
  type HealthDependencies,
  overallStatus,
  runHealthChecks,
} from '../checks/health.js';
import type { DiscoveryDocuments } from '../discovery-documents.js';
import type { GatewayState } from '../http/state.js';
import { GATEWAY_VERSION } from '../version.js';

/** What the discovery routes need. */
export interface DiscoveryRouteOptions {
  readonly documents: DiscoveryDocuments;
  readonly health: HealthDependencies;
  readonly publicBaseUrl: string;
  /** True while the process shuts down. */
  readonly draining: () => boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';

// Probes may come in floods (load balancers, monitors, benchmarks): one check run serves them all for
// a second, a staleness no probe can tell from its own polling interval.
const HEALTH_MAX_AGE_MS = 1000;

/**
 * Registers the unauthenticated discovery endpoints. @koa/router answers HEAD for every GET route.
 */
export function registerDiscoveryRoutes(router: Router<GatewayState>, options: DiscoveryRouteOptions): void {
  const domain = new URL(options.publicBaseUrl).host;
  const staticJson = (path: string, body: string) =>
    router.get(path, (ctx) => {
      ctx.type = JSON_TYPE;
      ctx.body = body;
    });

  const probe = createHealthProbe(() => runHealthChecks(options.health), { maxAgeMs: HEALTH_MAX_AGE_MS });
  router.get('/health', async (ctx) => {
    const checks = await probe();
    const status = overallStatus(checks);
    ctx.status = status === 'ok' ? 200 : 503;
    ctx.type = JSON_TYPE;
    ctx.body = JSON.stringify({
      status,
      service: 'agent-gateway',
      domain,
      timestamp: new Date().toISOString(),
      version: GATEWAY_VERSION,
      interface_version: INTERFACE_VERSION,
      checks,
    });
  });
  // Readiness for a load balancer: 503 from the first moment of a shutdown (SIGTERM), so traffic moves
  // to the other instances while this one finishes its requests. It checks nothing else: whether the
  // database and Redis answer is /health's to say, and every instance shares them.
  router.get('/health/ready', (ctx) => {
    const draining = options.draining();
    ctx.status = draining ? 503 : 200;
    ctx.type = JSON_TYPE;
    ctx.body = JSON.stringify({ status: draining ? 'draining' : 'ready' });
  });
  router.get('/llms.txt', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = options.documents.llmsTxt;
  });
  staticJson('/capabilities', options.documents.capabilities);
  staticJson('/mcp/manifest', options.documents.mcpManifest);
  staticJson('/mcp/tools', options.documents.mcpTools);
  staticJson('/openapi.json', options.documents.openapi);
}
