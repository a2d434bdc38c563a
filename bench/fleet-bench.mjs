// The bench's fleet scenario (issue 31, build 5): a private PostgreSQL 15 with pg_stat_statements,
// pgbouncer 1.18 in transaction mode, a Redis, three `agw serve` and nginx in front (bench/fleet.mjs,
// the fleet test's start-up), then the mutating invoke and the read invoke of bench/scenarios.mjs
// through nginx, each for `duration` seconds: total requests per second, and PostgreSQL's execution µs
// per request (pg_stat_statements' total_exec_time of every statement in the run, the sealer's and
// roll-up's included, divided by the requests answered). Needs initdb, nginx and pgbouncer.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { behindPgbouncer, prepareRunDir, startNginx, startPgbouncer } from './fleet.mjs';
import { scenarios } from './scenarios.mjs';
import { adminQuery, freePort, startPostgres, startRedis } from './services.mjs';

const root = new URL('..', import.meta.url).pathname;
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const GATEWAYS = 3;
const asRoot = process.getuid?.() === 0;

/** Why the fleet cannot run here (a program missing), or undefined. */
export function fleetMissing() {
  const have = (program) => {
    try {
      execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  const missing = ['nginx', 'pgbouncer', 'redis-server'].filter((program) => !have(program));
  if (!existsSync(join(PG_BIN, 'initdb'))) missing.push(join(PG_BIN, 'initdb'));
  return missing.length === 0 ? undefined : `needs ${missing.join(', ')} (scripts/ensure-test-tools.mjs)`;
}

function spawnGateway(env, port) {
  const child = spawn(process.execPath, [join(root, 'apps/cli/dist/bin.js'), 'serve'], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  return child;
}

/**
 * Resolves once `child`'s `/health/ready` answers 200. Each probe ends after 2 s (a gateway that accepts
 * but never answers must not stall the start), and a gateway that exits fails the start at once, with its
 * exit status (its stderr is the bench's).
 */
async function waitReady(child, url) {
  const deadline = performance.now() + 90_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `the gateway for ${url} exited (${child.exitCode ?? child.signalCode}) before it was ready`,
      );
    const ready = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} was not ready within 90 s`);
}

/**
 * PostgreSQL's total execution time so far (ms) and statements run, over every top-level statement: with
 * `track = all` a foreign key's lookup is recorded too (toplevel false), but its time is already in the
 * statement that ran it.
 */
async function executed(url) {
  const [row] = await adminQuery(
    url,
    `select coalesce(sum(total_exec_time), 0) as ms, coalesce(sum(calls), 0) as calls
       from pg_stat_statements where toplevel`,
  );
  return { ms: Number(row.ms), calls: Number(row.calls) };
}

/**
 * Starts the fleet, measures the mutating then the read invoke through nginx for `duration` s each
 * with `connections` connections, stops everything. Resolves with one row per invoke.
 */
export async function measureFleet({ duration, connections }) {
  const dir = mkdtempSync(join(tmpdir(), 'agw-bench-fleet-'));
  const processes = [];
  let postgres;
  try {
    if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), 0);
    await prepareRunDir(dir);
    postgres = await startPostgres({
      dir,
      settings: {
        max_connections: 100,
        shared_preload_libraries: 'pg_stat_statements',
        'pg_stat_statements.track': 'all',
      },
    });
    const pgUrl = postgres.url;
    await adminQuery(pgUrl, 'create extension pg_stat_statements');
    const redis = await startRedis();
    processes.push(redis.child);
    // As docs/deploy.md advises: about twice PostgreSQL's cores in busy server connections, all gateways together.
    const bouncer = await startPgbouncer({
      runDir: dir,
      pgPort: postgres.port,
      poolSize: 2 * availableParallelism(),
    });
    processes.push(bouncer.child);
    const ports = [];
    for (let index = 0; index < GATEWAYS; index += 1) ports.push(await freePort());
    const nginx = await startNginx({ runDir: dir, upstreamPorts: ports });
    processes.push(nginx.child);
    const env = {
      ...behindPgbouncer(bouncer.port),
      REDIS_URL: redis.url,
      DATA_DIR: join(dir, 'data'),
      // `agw serve` records itself for other shells: in the run's own folder, not the user's.
      XDG_STATE_HOME: dir,
      RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '999999',
      RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '999999',
      HOST: '127.0.0.1',
    };
    // The first migrates while the others wait for it (src/db/migrate.ts); all three then serve.
    const gateways = ports.map((port) => spawnGateway(env, port));
    processes.push(...gateways);
    await Promise.all(ports.map((port, index) => waitReady(gateways[index], `http://127.0.0.1:${port}`)));

    const rows = [];
    for (const name of ['invoke (mutating, fresh idempotency key)', 'invoke (read, 9 guards)']) {
      const scenario = scenarios.find((candidate) => candidate.name === name);
      const request = await scenario.prepare(nginx.url, { url: nginx.url, dataDir: env.DATA_DIR });
      const options = {
        url: `${nginx.url}${request.path}`,
        connections,
        method: request.method,
        headers: request.headers,
        body: request.body,
      };
      if (request.setupRequest) options.requests = [{ setupRequest: request.setupRequest }];
      await autocannon({ ...options, duration: Math.min(2, duration) }); // warm-up, not recorded
      const before = await executed(pgUrl);
      const result = await autocannon({ ...options, duration });
      const after = await executed(pgUrl);
      const requests = Math.max(result.requests.total, 1);
      rows.push({
        scenario: `fleet: ${name}`,
        gateways: GATEWAYS,
        requests_per_second: Math.round(result.requests.average),
        p99_ms: result.latency.p99,
        non_2xx: result.non2xx,
        errors: result.errors + result.timeouts,
        // The statements our own two pg_stat_statements reads add are negligible (2 of thousands).
        postgres_exec_us_per_request: Math.round(((after.ms - before.ms) * 1000) / requests),
        statements_per_request: Number(((after.calls - before.calls) / requests).toFixed(2)),
      });
    }
    return rows;
  } finally {
    for (const child of processes.reverse()) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
