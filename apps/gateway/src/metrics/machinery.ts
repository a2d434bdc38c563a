import type { Redis } from 'ioredis';
import { Counter, Gauge } from 'prom-client';
import { LEGACY_UNSEALED_SQL, SEAL_MARK_SQL, unsealedAuditRows } from '../audit-chain/sealer.js';
import { withTimeout } from '../checks/with-timeout.js';
import type { SqlPool } from '../db/pool.js';
import { ledgerRowsNotIn } from '../ports/wallet-store.js';
import type { GatewayMetrics } from './gateway-metrics.js';

/** What the machinery gauges read when Prometheus scrapes. */
export interface MachinerySources {
  readonly pool: SqlPool;
  /** The Redis client when REDIS_URL is set (no `agw_redis_up` without one). */
  readonly redis?: Redis | undefined;
  /** Each started domain's numbers (DomainService.stats), by domain name. */
  readonly domainStats: ReadonlyMap<string, () => Readonly<Record<string, number>>>;
}

/** Rows counted at most per count: a scrape stays cheap however large a backlog grows. */
export const COUNT_CAP = 10_000;
/** A scrape waits this long for the backlog statement, then answers with the previous values. */
const BACKLOG_TIMEOUT_MS = 2000;
/** The statement's answer is shared by the gauges of one scrape (prom-client collects them together). */
const BACKLOG_REUSE_MS = 500;

/**
 * One statement for every backlog, each part on an index (the sealer's txid index and the legacy queue's
 * primary key, the outbox's status index, the jobs' partial indexes), each count capped at COUNT_CAP
 * rows. Ages in seconds, 0 when nothing waits. The audit rows waiting are those the sealer would chain
 * ($1, $2: the last sealing snapshot's xmax and in-progress ids, read by SEAL_MARK_SQL). The charges
 * waiting are those committed and not visible in the charge roll-up's mark (src/ports/wallet-rollup.ts),
 * on the roll-up's `(txid)` index. A job's age counts from when it became due (`available_at`: a retry's
 * back-off is not lag).
 */
const BACKLOG_SQL = `
with unsealed as (
  select occurred_at from (
    (select e.occurred_at from ${LEGACY_UNSEALED_SQL} limit ${COUNT_CAP})
    union all
    (select e.occurred_at from audit_events e where ${unsealedAuditRows('$1::xid8', '$2::xid8[]')}
      limit ${COUNT_CAP})
  ) q limit ${COUNT_CAP})
, unrolled as (
  select l.occurred_at
  from wallet_rollup_mark m
  cross join lateral ${ledgerRowsNotIn('m.rolled_through', 'occurred_at', "txid <> '0' and kind = 'charge'")}
    as l
  limit ${COUNT_CAP})
select
  (select count(*) from unsealed)::int as audit_unsealed,
  (select greatest(coalesce(extract(epoch from now() - min(occurred_at)), 0), 0)::float8 from unsealed)
    as sealer_lag,
  (select count(*) from unrolled)::int as charges_unrolled,
  (select greatest(coalesce(extract(epoch from now() - min(occurred_at)), 0), 0)::float8 from unrolled)
    as rollup_lag,
  (select count(*) from (select 1 from mail_outbox where status = 'queued' limit ${COUNT_CAP}) q)::int
    as outbox_queued,
  (select count(*) from (select 1 from mail_outbox where status = 'failed' limit ${COUNT_CAP}) q)::int
    as outbox_failed,
  (select coalesce(extract(epoch from now() - min(created_at)), 0)::float8
     from (select created_at from mail_outbox where status = 'queued' limit ${COUNT_CAP}) q) as outbox_oldest,
  (select count(*) from (select 1 from invoke_jobs where status = 'queued' limit ${COUNT_CAP}) q)::int
    as jobs_queued,
  (select count(*) from (select 1 from invoke_jobs where status = 'running' limit ${COUNT_CAP}) q)::int
    as jobs_running,
  (select greatest(coalesce(extract(epoch from now() - min(available_at)), 0), 0)::float8
     from invoke_jobs where status = 'queued') as jobs_oldest`;

interface Backlog {
  readonly audit_unsealed: number;
  readonly sealer_lag: number;
  readonly charges_unrolled: number;
  readonly rollup_lag: number;
  readonly outbox_queued: number;
  readonly outbox_failed: number;
  readonly outbox_oldest: number;
  readonly jobs_queued: number;
  readonly jobs_running: number;
  readonly jobs_oldest: number;
}

/**
 * Registers the gauges of the machinery, each read when Prometheus scrapes (never on the request
 * path): the pool's connections in use and waiting, Redis' state, the audit sealer's, the charge
 * roll-up's, the mail outbox's and the job queue's backlogs (one bounded statement), and each domain's
 * `stats`.
 */
export function registerMachinery(metrics: GatewayMetrics, sources: MachinerySources): void {
  const registers = [metrics.registry];
  const { pool } = sources;
  new Gauge({
    name: 'agw_db_pool_connections_in_use',
    help: 'Database connections lent to a request or task now (PGlite: its one session, 0 or 1)',
    registers,
    collect() {
      this.set(pool.usage().inUse);
    },
  });
  new Gauge({
    name: 'agw_db_pool_waiting_requests',
    help: 'Requests waiting for a database connection now',
    registers,
    collect() {
      this.set(pool.usage().waiting);
    },
  });
  const { redis } = sources;
  if (redis !== undefined) {
    new Gauge({
      name: 'agw_redis_up',
      help: '1 while the Redis connection is ready, else 0 (rate limits and cache invalidation fall back or fail)',
      registers,
      collect() {
        this.set(redis.status === 'ready' ? 1 : 0);
      },
    });
  }
  registerBacklog(metrics, sources);
  registerDomainStats(metrics, sources.domainStats);
}

function registerBacklog(metrics: GatewayMetrics, sources: MachinerySources): void {
  const registers = [metrics.registry];
  const failures = new Counter({
    name: 'agw_metrics_backlog_failures_total',
    help: 'Scrapes whose backlog statement failed or took over 2 s (the backlog gauges kept their previous values)',
    registers,
  });
  let last: { at: number; read: Promise<Backlog | undefined> } | undefined;
  let previous: Backlog | undefined;
  const read = (): Promise<Backlog | undefined> => {
    if (last !== undefined && Date.now() - last.at < BACKLOG_REUSE_MS) return last.read;
    const answer = readBacklog(sources.pool);
    const reading = withTimeout(answer, BACKLOG_TIMEOUT_MS, undefined).then((backlog) => {
      if (backlog === undefined) failures.inc();
      else previous = backlog;
      return previous;
    });
    last = { at: Date.now(), read: reading };
    return reading;
  };
  const gauge = (name: string, help: string, value: (backlog: Backlog) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const backlog = await read();
        if (backlog !== undefined) this.set(Number(value(backlog)));
      },
    });
  gauge(
    'agw_audit_unsealed_rows',
    `Audit rows waiting to be sealed into the chain (counted up to ${COUNT_CAP})`,
    (b) => b.audit_unsealed,
  );
  gauge(
    'agw_audit_sealer_lag_seconds',
    'Age of the oldest audit row waiting to be sealed; 0 when none waits',
    (b) => b.sealer_lag,
  );
  gauge(
    'agw_wallet_charges_unrolled',
    `Charges committed and not folded into the wallets by the charge roll-up yet (counted up to ${COUNT_CAP})`,
    (b) => b.charges_unrolled,
  );
  gauge(
    'agw_charge_rollup_lag_seconds',
    'Age of the oldest charge waiting to be rolled up; 0 when none waits',
    (b) => b.rollup_lag,
  );
  gauge(
    'agw_mail_outbox_queued_messages',
    `Mails queued in the outbox (counted up to ${COUNT_CAP})`,
    (b) => b.outbox_queued,
  );
  gauge(
    'agw_mail_outbox_failed_messages',
    `Mails the outbox gave up on (counted up to ${COUNT_CAP})`,
    (b) => b.outbox_failed,
  );
  gauge(
    'agw_mail_outbox_oldest_queued_age_seconds',
    'Age of the oldest queued mail; 0 when none is queued',
    (b) => b.outbox_oldest,
  );
  gauge('agw_jobs_queued', `Long-running jobs queued (counted up to ${COUNT_CAP})`, (b) => b.jobs_queued);
  gauge('agw_jobs_running', `Long-running jobs running (counted up to ${COUNT_CAP})`, (b) => b.jobs_running);
  gauge(
    'agw_jobs_oldest_queued_age_seconds',
    'How long the oldest due queued job has waited for a worker; 0 when none waits',
    (b) => b.jobs_oldest,
  );
}

async function readBacklog(pool: SqlPool): Promise<Backlog | undefined> {
  const mark = (await pool.query<{ xmax: string | null; xip: string | null }>(SEAL_MARK_SQL)).rows[0];
  const result = await pool.query<Backlog>(BACKLOG_SQL, [mark?.xmax ?? null, mark?.xip ?? null]);
  return result.rows[0];
}

/** `agw_<domain>_<name>` for each number a domain reports: a counter for `_total`, else a gauge. */
function registerDomainStats(
  metrics: GatewayMetrics,
  domainStats: ReadonlyMap<string, () => Readonly<Record<string, number>>>,
): void {
  const registers = [metrics.registry];
  for (const [domain, stats] of domainStats) {
    for (const name of Object.keys(stats())) {
      const help = `Reported by the ${domain} domain (DomainService.stats)`;
      const metricName = `agw_${domain}_${name}`;
      if (name.endsWith('_total')) {
        new Counter({
          name: metricName,
          help,
          registers,
          collect() {
            // A count since the start, kept by the domain: the counter shows it as it is.
            this.reset();
            this.inc(stats()[name] ?? 0);
          },
        });
      } else {
        new Gauge({
          name: metricName,
          help,
          registers,
          collect() {
            this.set(stats()[name] ?? 0);
          },
        });
      }
    }
  }
}
