import type { CapabilityHandler } from '../define.js';
import type { CapabilityDomain, DomainHost, DomainService } from '../domain.js';
import { runStatement } from '../sql.js';
import { eventsOpenApi } from './events-openapi.js';
import { analyticsEventsReadHandler } from './events-read.js';
import { ingestion, PREFLIGHT_HEADERS } from './ingestion.js';
import { analyticsMigrations } from './migrations.js';
import { analyticsPropertyManageHandler } from './property-manage.js';
import { rollUp } from './rollup.js';
import { analyticsSettings, eventsPerMinuteOf } from './settings.js';
import { deleteExpiredEvents, deleteExpiredRollups, deleteOldSalts } from './sql.js';
import { analyticsStatsReadHandler } from './stats-read.js';
import { TRACKER_SCRIPT } from './tracker.js';
import { EventWriter } from './writer.js';

/** Room for a batch of 100 events with their properties. */
const EVENTS_BODY_LIMIT_BYTES = 256 * 1024;

/** Ingestion and the tracker (public routes), the event writer, daily rollups and retention. */
function start(host: DomainHost): DomainService {
  const writer = new EventWriter(host.sql, host.log);
  const handle = ingestion(host, writer, eventsPerMinuteOf(host.settings));
  return {
    routes: [
      {
        method: 'POST',
        path: '/a/events',
        bodyLimitBytes: EVENTS_BODY_LIMIT_BYTES,
        handle,
        openapi: eventsOpenApi,
      },
      {
        method: 'OPTIONS',
        path: '/a/events',
        handle: async () => ({ status: 204, headers: { ...PREFLIGHT_HEADERS } }),
      },
      {
        method: 'GET',
        path: '/a/script.js',
        handle: async () => ({
          status: 200,
          headers: {
            'content-type': 'text/javascript; charset=utf-8',
            'cache-control': 'public, max-age=3600',
            'cross-origin-resource-policy': 'cross-origin',
          },
          body: TRACKER_SCRIPT,
        }),
        openapi: {
          summary: 'The tracker script: a page view on load, window.agw(name, properties) for custom events',
          tags: ['analytics'],
          responses: { '200': { description: 'JavaScript (under 2 KB)' } },
        },
      },
    ],
    tasks: [
      {
        name: 'analytics.retention',
        intervalMs: 60 * 60_000,
        async run() {
          const now = host.clock.now();
          await runStatement(host.sql, deleteExpiredEvents, [now]);
          await runStatement(host.sql, deleteExpiredRollups, [now]);
          await runStatement(host.sql, deleteOldSalts, [now.toISOString().slice(0, 10)]);
        },
      },
      {
        // Days are rolled up 15 minutes after they end; a late event's day within 5 more minutes.
        name: 'analytics.rollup',
        intervalMs: 5 * 60_000,
        async run() {
          await rollUp(host.sql, host.clock.now());
        },
      },
    ],
    stop: () => writer.drain(),
    // The gateway's metrics: agw_analytics_events_queued, agw_analytics_events_dropped_total.
    stats: () => ({ events_queued: writer.queued, events_dropped_total: writer.dropped }),
  };
}

/** `analytics`: properties, cookieless event ingestion with a tracker, event reads and stats. */
export const analyticsDomain: CapabilityDomain = {
  name: 'analytics',
  handlers: [
    analyticsPropertyManageHandler,
    analyticsEventsReadHandler,
    analyticsStatsReadHandler,
  ] as readonly CapabilityHandler<never>[],
  migrations: analyticsMigrations,
  settings: analyticsSettings,
  start,
};
