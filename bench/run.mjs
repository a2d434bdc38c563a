// `npm run bench`: measures the production build of the gateway against two references in the same run —
// a bare Koa JSON echo, and per database mode the prototype ceiling of the invoke hot path
// (../shared/bench/prototype-gateway.mjs: the least work an invoke can do here) — on the embedded default
// (PGlite) and on PostgreSQL + Redis, and writes bench/results/latest.{json,md}.
// Loopback only; every load run is bounded by --duration seconds.
//   node bench/run.mjs [--duration 10] [--connections 32] [--modes embedded,postgres]
//   node bench/run.mjs --only 'renders its'   (only the scenarios whose name contains the text; 'fleet'
//                                               for the fleet alone: three gateways, nginx, pgbouncer)
//   node bench/run.mjs --smoke   (CI: ~20 s on the embedded default, 1 s per scenario, no warm-up; fails
//                                 when a scenario answers anything but 2xx; writes bench/results/smoke.*)
// With DATABASE_URL and REDIS_URL set, postgres mode uses those servers (and leaves them running);
// otherwise it starts and stops its own through scripts/services.sh.
import { execFileSync, fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuMicros, processWithPid } from './cpu.mjs';
import { fleetMissing, measureFleet } from './fleet-bench.mjs';
import { prototypePath, prototypeRequests, startPrototype } from './prototype.mjs';
import { renderMarkdown } from './report.mjs';
import { scenarios } from './scenarios.mjs';
import { adminQuery, resetStatements, statementsLoaded, statementsOf } from './services.mjs';

const root = new URL('..', import.meta.url).pathname;
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    modes: { type: 'string', default: 'embedded,postgres' },
    smoke: { type: 'boolean', default: false },
    // Only the scenarios whose name contains this text, e.g. --only 'while another organization renders'.
    only: { type: 'string' },
  },
});
const smoke = args.smoke;
const duration = smoke ? 1 : Number(args.duration);
const connections = smoke ? 8 : Number(args.connections);
const modes = smoke ? ['embedded'] : args.modes.split(',');

/** Peak resident set size (VmHWM) of a process, in MiB. */
function peakRssMiB(pid) {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return match ? Math.round(Number(match[1]) / 1024) : null;
}

// Whose CPU each request costs: the server measured, and the PostgreSQL and Redis servers of the machine
// (idle otherwise). Per request, CPU time is steadier than req/s when the machine is shared.
const cpuGroups = (pid) => ({
  server: processWithPid(pid),
  postgres: (_pid, _parent, command) => command.startsWith('postgres'),
  redis: (_pid, _parent, command) => command.startsWith('redis-server'),
});

/**
 * PostgreSQL's execution time in the database `name` of the server `admin` connects to (one with
 * pg_stat_statements loaded): `reset()` before a measured run, `read()` after it gives the milliseconds of
 * `total_exec_time` of every statement the database ran meanwhile (the sealer's and roll-up's too), as
 * bench/invoke-cpu.mjs sums them.
 */
function statementsProbe(admin, name) {
  return {
    reset: () => resetStatements(admin, name),
    read: async () =>
      (await statementsOf(admin, name)).reduce((sum, row) => sum + Number(row.total_exec_time), 0),
  };
}

async function load(url, request, pid, statements) {
  // A scenario may name its own concurrency (another tenant's steady traffic rather than a flood).
  const options = {
    url,
    connections: request.connections ?? connections,
    method: request.method,
    headers: request.headers,
    body: request.body,
  };
  // A scenario may rewrite each request (e.g. a fresh idempotency key per request).
  if (request.setupRequest) options.requests = [{ setupRequest: request.setupRequest }];
  if (!smoke) await autocannon({ ...options, duration: Math.min(2, duration) }); // warm-up, not recorded
  const groups = Object.entries(cpuGroups(pid));
  await statements?.reset();
  const before = groups.map(([, match]) => cpuMicros(match));
  const result = await autocannon({ ...options, duration });
  const requests = Math.max(result.requests.total, 1);
  const executedMs = await statements?.read();
  return {
    requests_per_second: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
    non_2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpu_us_per_request: Object.fromEntries(
      groups.map(([name, match], index) => [name, Math.round((cpuMicros(match) - before[index]) / requests)]),
    ),
    ...(executedMs === undefined
      ? {}
      : { postgres_exec_us_per_request: Math.round((executedMs * 1000) / requests) }),
  };
}

/** The prototype's read and mutating invoke for one mode, or undefined where shared/ is not beside us. */
async function measurePrototype(env) {
  if (!existsSync(prototypePath)) return undefined;
  const database = await freshDatabase(env);
  const prototype = await startPrototype({ ...withoutServices(process.env), ...database.env });
  try {
    const requests = prototypeRequests();
    return {
      read: await load(prototype.url, requests.read, prototype.child.pid, database.statements),
      mutating: await load(prototype.url, requests.mutating, prototype.child.pid, database.statements),
    };
  } finally {
    await stop(prototype.child);
    await database.drop();
  }
}

function startEcho() {
  const child = fork(join(root, 'bench/echo-server.mjs'), { stdio: 'ignore' });
  return new Promise((resolve) =>
    child.once('message', ({ port }) => resolve({ child, url: `http://127.0.0.1:${port}` })),
  );
}

// 'standard' is `agw serve`; 'padded' the same build with 10 000 synthetic capabilities in its catalog.
const entries = { standard: ['apps/cli/dist/bin.js', 'serve'], padded: ['bench/padded-gateway.mjs'] };

/** Whether the PostgreSQL mode's server has pg_stat_statements loaded: asked once, at its first database. */
let statementsReadable;

/**
 * A fresh database per gateway start on PostgreSQL, so the gateway's first start writes
 * DATA_DIR/operator.key (the invoke scenarios approve their installation with it) and runs never
 * see each other's rows.
 */
async function freshDatabase(env) {
  if (!env.DATABASE_URL) return { env, drop: async () => {} };
  statementsReadable ??= statementsLoaded(env.DATABASE_URL);
  const name = `agw_bench_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  await adminQuery(env.DATABASE_URL, `create database ${name}`);
  const url = new URL(env.DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    env: { ...env, DATABASE_URL: url.href },
    // Where pg_stat_statements is not loaded the execution column reads —.
    statements: (await statementsReadable) ? statementsProbe(env.DATABASE_URL, name) : undefined,
    drop: () => adminQuery(env.DATABASE_URL, `drop database if exists ${name} with (force)`),
  };
}

async function startGateway(env, kind = 'standard') {
  const dataDir = mkdtempSync(join(tmpdir(), 'agw-bench-'));
  const port = 18080 + Math.floor(Math.random() * 1000);
  const [entry, ...command] = entries[kind];
  const args = [join(root, entry), ...command, '--port', String(port), '--data-dir', dataDir];
  const child = spawn(process.execPath, args, {
    // The rate limiter still runs on every invoke (Redis in postgres mode); its buckets are set high
    // enough that a load run measures the path, not 429s.
    env: {
      // The mode decides the database: an exported DATABASE_URL/REDIS_URL must not turn the embedded
      // run into a PostgreSQL one (postgres mode passes them in `env`).
      ...withoutServices(process.env),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '999999',
      RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '999999',
      ANALYTICS_EVENTS_PER_MINUTE: '99999999',
      // `agw serve` records itself for other shells: in the run's own folder, not the user's.
      XDG_STATE_HOME: dataDir,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 240; attempt += 1) {
    const ready = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { child, url, dataDir };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGKILL');
  throw new Error('the gateway did not answer /health within 60 s');
}

function withoutServices({ DATABASE_URL: _database, REDIS_URL: _redis, ...rest }) {
  return rest;
}

async function stop(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The PostgreSQL + Redis of the environment when both are set, else a pair started here. */
function servicesEnv() {
  if (process.env.DATABASE_URL && process.env.REDIS_URL) {
    return { DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL, external: true };
  }
  const output = execFileSync(join(root, 'scripts/services.sh'), ['start'], {
    encoding: 'utf8',
    env: { ...process.env, PG_STAT_STATEMENTS: '1' },
  });
  return Object.fromEntries(
    output
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  );
}

const report = {
  generated_at: new Date().toISOString(),
  duration_s: duration,
  connections,
  baseline: {},
  modes: {},
};
const echoPost = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ id: 'core.org.current.get', params: {} }),
};
const echoRequests = { get: { method: 'GET' }, post: echoPost };
// The echo keeps running: each scenario's ratio is taken against the echo measured right before and
// right after it (half the duration each), not against the first minute of the run. On these shared
// machines the echo alone moved between 12 500 and 25 000 req/s from one minute to the next.
const echo = await startEcho();
report.baseline.get = await load(echo.url, echoRequests.get, echo.child.pid);
report.baseline.post = await load(echo.url, echoRequests.post, echo.child.pid);

/** The echo's req/s for `kind` ('get' or 'post') now: a short run without warm-up (the echo is warm). */
async function echoNow(kind) {
  const options = { url: echo.url, connections, ...echoRequests[kind] };
  const result = await autocannon({ ...options, duration: Math.max(1, duration / 2) });
  return Math.round(result.requests.average);
}

async function measure(gateway, scenario, prototype) {
  const request = await scenario.prepare(gateway.url, { ...gateway, smoke });
  if (request.skip) return { scenario: scenario.name, skipped: request.skip };
  const before = await echoNow(scenario.baseline);
  let measured;
  try {
    measured = await load(`${gateway.url}${request.path}`, request, gateway.child.pid, gateway.statements);
  } finally {
    // A scenario with background work (a render loop) ends it here; what it says joins the note.
    const said = await request.stop?.();
    if (said) request.note = request.note ? `${request.note}; ${said}` : said;
  }
  const after = await echoNow(scenario.baseline);
  const baseline = { requests_per_second: Math.round((before + after) / 2) };
  const ceiling = scenario.prototype === undefined ? undefined : prototype?.[scenario.prototype];
  return {
    scenario: scenario.name,
    ...(request.note === undefined ? {} : { note: request.note }),
    ...measured,
    echo_around: { before, after },
    ratio_to_baseline: ratio(measured, baseline),
    ...(ceiling === undefined ? {} : { ratio_to_prototype: ratio(measured, ceiling) }),
    p99_added_ms: Number((measured.p99_ms - report.baseline[scenario.baseline].p99_ms).toFixed(2)),
  };
}

function ratio(measured, reference) {
  return Number((measured.requests_per_second / reference.requests_per_second).toFixed(3));
}

for (const mode of modes) {
  const { external, ...env } = mode === 'postgres' ? servicesEnv() : {};
  const result = { scenarios: [], peak_rss_mib: {} };
  try {
    result.prototype = await measurePrototype(env);
    for (const kind of Object.keys(entries)) {
      const selected = scenarios.filter(
        (scenario) =>
          (scenario.gateway ?? 'standard') === kind &&
          (scenario.modes === undefined || scenario.modes.includes(mode)) &&
          (args.only === undefined || scenario.name.includes(args.only)),
      );
      if (selected.length === 0) continue;
      const database = await freshDatabase(env);
      const gateway = { ...(await startGateway(database.env, kind)), statements: database.statements };
      try {
        for (const scenario of selected) {
          result.scenarios.push(await measure(gateway, scenario, result.prototype));
        }
        result.peak_rss_mib[kind] = peakRssMiB(gateway.child.pid);
      } finally {
        await stop(gateway.child);
        rmSync(gateway.dataDir, { recursive: true, force: true });
        await database.drop();
      }
    }
  } finally {
    if (mode === 'postgres' && !external) execFileSync(join(root, 'scripts/services.sh'), ['stop']);
  }
  report.modes[mode] = result;
}

// Three gateways through nginx and pgbouncer on a PostgreSQL of their own (bench/fleet-bench.mjs). Not in
// the smoke run: three gateways starting at once take 20-30 s here, more than the whole smoke budget.
if (smoke) {
  report.fleet = { skipped: 'not in the smoke run (the fleet alone starts in 20-30 s)' };
} else if (args.only === undefined || 'fleet'.includes(args.only)) {
  const missing = fleetMissing();
  report.fleet = missing
    ? { skipped: missing }
    : { scenarios: await measureFleet({ duration, connections }) };
}

report.baseline.peak_rss_mib = peakRssMiB(echo.child.pid);
await stop(echo.child);

const name = smoke ? 'smoke' : 'latest';
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, `bench/results/${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
const markdown = renderMarkdown(report);
writeFileSync(join(root, `bench/results/${name}.md`), markdown);
process.stdout.write(markdown);

// The smoke run keeps the harness working: every scenario must have run and answered only 2xx.
if (smoke) {
  const broken = Object.values(report.modes)
    .flatMap((mode) => mode.scenarios)
    .filter((row) => row.skipped || row.non_2xx > 0 || row.errors > 0 || !(row.requests_per_second > 0));
  if (broken.length > 0) {
    console.error(`bench smoke: ${broken.length} scenario(s) broken: ${JSON.stringify(broken)}`);
    process.exit(1);
  }
  console.error('bench smoke: every scenario answered 2xx');
}
