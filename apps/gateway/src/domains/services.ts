import type { CapabilityDomain, PublicRoute } from '@agw/capabilities';
import { createPeriodicTask, type PeriodicTask } from '../periodic.js';
import { createDomainHost, type DomainHostOptions } from './host.js';

/** A domain's route, with the domain it belongs to (for logs and the OpenAPI document). */
export interface DomainRoute {
  readonly domain: string;
  readonly route: PublicRoute;
}

/** The domain services running in this process. */
export interface RunningDomains {
  readonly routes: readonly DomainRoute[];
  /** Each started domain's `stats` (DomainService.stats), by domain name, for the metrics. */
  readonly stats: ReadonlyMap<string, () => Readonly<Record<string, number>>>;
  /** Stops every task (each runs once more, bounded), then every service's own `stop`. */
  stop(): Promise<void>;
}

/**
 * Starts every domain that has a `start` (public routes, timed tasks): once per gateway process, after
 * migrations, before the app serves requests.
 */
export function startDomains(
  domains: readonly CapabilityDomain[],
  options: DomainHostOptions,
): RunningDomains {
  const routes: DomainRoute[] = [];
  const tasks: PeriodicTask[] = [];
  const stops: Array<{ domain: string; stop: () => Promise<void> }> = [];
  const stats = new Map<string, () => Readonly<Record<string, number>>>();
  for (const domain of domains) {
    if (!domain.start) continue;
    const service = domain.start(createDomainHost(domain.name, options));
    for (const route of service.routes ?? []) routes.push({ domain: domain.name, route });
    for (const task of service.tasks ?? []) {
      const periodic = createPeriodicTask({
        run: task.run,
        intervalMs: task.intervalMs,
        logger: options.logger.child({ domain: domain.name, task: task.name }),
        failure: `${domain.name} task ${task.name} failed`,
      });
      periodic.start();
      tasks.push(periodic);
    }
    if (service.stats) stats.set(domain.name, service.stats);
    if (service.stop) stops.push({ domain: domain.name, stop: () => service.stop?.() ?? Promise.resolve() });
  }
  return {
    routes,
    stats,
    async stop() {
      await Promise.all(tasks.map((task) => task.stop()));
      // Side by side; the gateway's shutdown bounds the whole step (SHUTDOWN_GRACE_MS, src/server.ts).
      await Promise.all(
        stops.map(({ domain, stop }) =>
          stop().catch((error: unknown) =>
            options.logger.error({ err: error, domain }, 'domain stop failed'),
          ),
        ),
      );
    },
  };
}
