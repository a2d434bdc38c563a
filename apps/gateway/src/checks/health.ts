import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { DatabaseDriver } from '../db/knex.js';
import { sqlPoolOf } from '../db/pool.js';
import { checkMail, type MailCheck } from './mail.js';
import { withTimeout } from './with-timeout.js';

/** The `checks` member of the HealthResponse. */
export interface HealthChecks {
  readonly database: { readonly status: 'ok' | 'down'; readonly driver: DatabaseDriver };
  readonly redis: { readonly status: 'ok' | 'down' | 'not_configured' };
  readonly mail: MailCheck;
}

/** What the health checks need. */
export interface HealthDependencies {
  readonly knex: Knex;
  readonly driver: DatabaseDriver;
  readonly redis: Redis | undefined;
  readonly smtpUrl: string | undefined;
  readonly dataDir: string;
}

// A probe answers quickly even when a dependency hangs.
const CHECK_TIMEOUT_MS = 2000;

/** Runs the database, Redis and mail checks in parallel, each bounded by a timeout. */
export async function runHealthChecks(dependencies: HealthDependencies): Promise<HealthChecks> {
  const [database, redis, mail] = await Promise.all([
    withTimeout(
      sqlPoolOf(dependencies.knex)
        .query('select 1')
        .then(() => 'ok' as const),
      CHECK_TIMEOUT_MS,
      'down' as const,
    ),
    checkRedis(dependencies.redis),
    withTimeout(
      checkMail({ smtpUrl: dependencies.smtpUrl, dataDir: dependencies.dataDir }),
      CHECK_TIMEOUT_MS,
      { status: 'down', transport: dependencies.smtpUrl ? 'smtp' : 'dev_mailbox' } as MailCheck,
    ),
  ]);
  return { database: { status: database, driver: dependencies.driver }, redis: { status: redis }, mail };
}

async function checkRedis(redis: Redis | undefined): Promise<'ok' | 'down' | 'not_configured'> {
  if (!redis) return 'not_configured';
  if (redis.status !== 'ready') return 'down';
  return withTimeout(
    redis.ping().then((reply) => (reply === 'PONG' ? ('ok' as const) : ('down' as const))),
    CHECK_TIMEOUT_MS,
    'down' as const,
  );
}

/** 'ok' only when every configured dependency is ok; anything down makes the gateway 'degraded'. */
export function overallStatus(checks: HealthChecks): 'ok' | 'degraded' {
  const down =
    checks.database.status === 'down' || checks.redis.status === 'down' || checks.mail.status === 'down';
  return down ? 'degraded' : 'ok';
}

/** Options of {@link createHealthProbe}. */
export interface HealthProbeOptions {
  /** How long one result answers every caller. */
  readonly maxAgeMs: number;
  /** Milliseconds clock; injectable for tests. */
  readonly now?: () => number;
}

/**
 * Shares one run of the checks between concurrent callers and reuses its result for `maxAgeMs`, so a
 * flood of probes costs at most one database query, one Redis PING and one SMTP greeting per window.
 */
export function createHealthProbe(
  run: () => Promise<HealthChecks>,
  options: HealthProbeOptions,
): () => Promise<HealthChecks> {
  const now = options.now ?? Date.now;
  let latest: { readonly startedAt: number; readonly result: Promise<HealthChecks> } | undefined;
  return () => {
    if (latest === undefined || now() - latest.startedAt >= options.maxAgeMs) {
      latest = { startedAt: now(), result: run() };
    }
    return latest.result;
  };
}
