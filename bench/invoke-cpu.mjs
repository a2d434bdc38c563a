// The invoke hot path alone, for work on it: starts the built gateway once, loads the read and the
// mutating invoke scenarios of bench/scenarios.mjs, and prints per request the gateway's CPU µs and —
// when the PostgreSQL server has pg_stat_statements loaded — the statements PostgreSQL ran, by text, and
// their execution time (calls and µs per request, by statement), then the same for the prototype
// (../shared/bench/prototype-gateway.mjs) on a fresh database of the same server, as the reference.
// CPU per request is what to compare on a shared machine (req/s moves with the neighbours' load).
//   node bench/invoke-cpu.mjs [--duration 10] [--connections 32] [--rate N] [--profile DIR] [--scenarios read,mutating]
//                             [--slow MS]
// With DATABASE_URL and REDIS_URL set it runs on them (a fresh database, dropped afterwards), otherwise
// on the embedded default. It prints the slowest answer too; --slow MS also lists when (seconds into
// the run) each answer slower than MS ms arrived, to tell a steady queue from stalls (a run of answers
// whose latency equals their arrival time: requests sent at the start, waiting all along). --rate caps
// the load at N requests per second in all, so two builds compared on a busy machine do the same work
// per second. --profile starts the gateway with `node --cpu-prof --cpu-prof-dir=DIR`. KEEP_DB=1 keeps the
// gateway's database (its name is printed) for a look at its rows and pg_stat_statements afterwards.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuMicros, postgresServer, postmasterOf, processWithPid } from './cpu.mjs';
import { prototypePath, prototypeRequests, startPrototype } from './prototype.mjs';
import { scenarios } from './scenarios.mjs';
import { adminQuery as admin, resetStatements, statementsLoaded, statementsOf } from './services.mjs';

const root = new URL('..', import.meta.url).pathname;
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    profile: { type: 'string' },
    rate: { type: 'string' },
    slow: { type: 'string' },
    scenarios: { type: 'string', default: 'read,mutating' },
  },
});
const names = { read: 'invoke (read, 9 guards)', mutating: 'invoke (mutating, fresh idempotency key)' };

// The services of the environment, if any; the gateway gets them only through `env` below.
const { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, ...inherited } = process.env;
const external = databaseUrl && redisUrl;
let env = {};
let database;
if (external) {
  database = `agw_cpu_${Date.now().toString(36)}`;
  await admin(databaseUrl, `create database ${database}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  env = { DATABASE_URL: url.href, REDIS_URL: redisUrl };
}
const statementsAvailable = external && (await statementsLoaded(databaseUrl));
// The server's own processes, for its CPU per request (readable when the bench runs on its machine).
const postmaster = external ? await postmasterOf(databaseUrl).catch(() => undefined) : undefined;

const dataDir = mkdtempSync(join(tmpdir(), 'agw-cpu-'));
const port = 19080 + Math.floor(Math.random() * 1000);
const nodeArgs = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [];
const child = spawn(
  process.execPath,
  [...nodeArgs, join(root, 'apps/cli/dist/bin.js'), 'serve', '--port', String(port), '--data-dir', dataDir],
  {
    env: {
      ...inherited,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '999999',
      RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '999999',
      // `agw serve` records itself for other shells: in the run's own folder, not the user's.
      XDG_STATE_HOME: dataDir,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
const base = `http://127.0.0.1:${port}`;
for (let attempt = 0; ; attempt += 1) {
  if (
    await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  if (attempt > 240) throw new Error('the gateway did not start');
  await new Promise((resolve) => setTimeout(resolve, 250));
}

/**
 * One load run of `request` against `url`, served by `server` ('gateway' or 'prototype', process `pid`):
 * req/s, latency and CPU per request, and — with pg_stat_statements — every statement `databaseName`
 * ran, per request.
 */
async function measure(server, scenario, url, pid, request, databaseName) {
  const label = server === 'gateway' ? scenario : `prototype ${scenario}`;
  const options = {
    url: `${url}${request.path ?? ''}`,
    connections: Number(args.connections),
    method: request.method,
    headers: request.headers,
    body: request.body,
  };
  if (args.rate) options.overallRate = Number(args.rate);
  if (request.setupRequest) options.requests = [{ setupRequest: request.setupRequest }];
  await autocannon({ ...options, duration: 2 }); // warm-up
  // Only this database's statements: another run on the same server keeps its own.
  if (statementsAvailable) await resetStatements(databaseUrl, databaseName);
  const before = cpuMicros(processWithPid(pid));
  const postgresBefore = postmaster === undefined ? 0 : cpuMicros(postgresServer(postmaster));
  const started = performance.now();
  const slow = [];
  const run = autocannon({ ...options, duration: Number(args.duration) });
  // autocannon reports each answer's latency: note the slow ones with the moment they arrived.
  run.on('response', (_client, _status, _bytes, latency) => {
    if (args.slow && latency >= Number(args.slow))
      slow.push(`${((performance.now() - started) / 1000).toFixed(2)}s:${Math.round(latency)}`);
  });
  const result = await run;
  const cpu = cpuMicros(processWithPid(pid)) - before;
  const postgresCpu =
    postmaster === undefined ? undefined : cpuMicros(postgresServer(postmaster)) - postgresBefore;
  const count = result.requests.total;
  const non2xx = result.non2xx + result.errors;
  console.log(
    `${label}: ${count} requests (${non2xx} not 2xx), ${Math.round(result.requests.average)} req/s, ` +
      `p99 ${result.latency.p99} ms, max ${result.latency.max} ms, ${server} CPU ${Math.round(cpu / count)} µs/request`,
  );
  if (args.slow) console.log(`  ${slow.length} answers ≥ ${args.slow} ms (at:ms): ${slow.join(' ')}`);
  if (!statementsAvailable) return undefined;
  const rows = await statementsOf(databaseUrl, databaseName);
  let total = 0;
  let executionMs = 0;
  for (const row of rows) {
    const perRequest = Number(row.calls) / count;
    total += perRequest;
    executionMs += Number(row.total_exec_time);
    const micros = (Number(row.total_exec_time) * 1000) / count;
    if (perRequest >= 0.01 || micros >= 1)
      console.log(
        `  ${perRequest.toFixed(2)}  ${micros.toFixed(0).padStart(5)} µs  ${row.query.slice(0, 150)}`,
      );
  }
  // PostgreSQL's own execution time (pg_stat_statements' total_exec_time, lock waits included).
  const micros = Math.round((executionMs * 1000) / count);
  console.log(`  ${total.toFixed(2)} statements and ${micros} µs of PostgreSQL execution per request`);
  // Execution time counts waiting for a core or a lock too; the server's CPU is the work alone.
  if (postgresCpu !== undefined)
    console.log(`  PostgreSQL CPU (all its processes) ${Math.round(postgresCpu / count)} µs per request`);
  return micros;
}

const executions = {};
try {
  for (const short of args.scenarios.split(',')) {
    const scenario = scenarios.find((candidate) => candidate.name === names[short]);
    const request = await scenario.prepare(base, { url: base, dataDir, child });
    executions[short] = await measure('gateway', short, base, child.pid, request, database);
  }
} finally {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
  if (database && !process.env.KEEP_DB)
    await admin(databaseUrl, `drop database if exists ${database} with (force)`);
  if (process.env.KEEP_DB) console.log(`kept database ${database}`);
}

// The reference: the prototype doing the same two invokes on a fresh database of the same server, so
// the gateway's PostgreSQL cost reads as a multiple of the least an invoke can cost here.
if (statementsAvailable && existsSync(prototypePath)) {
  const name = `agw_cpu_proto_${Date.now().toString(36)}`;
  await admin(databaseUrl, `create database ${name}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const prototype = await startPrototype({ ...inherited, DATABASE_URL: url.href });
  try {
    const requests = prototypeRequests();
    for (const short of args.scenarios.split(',')) {
      const micros = await measure(
        'prototype',
        short,
        prototype.url,
        prototype.child.pid,
        requests[short],
        name,
      );
      const gateway = executions[short];
      if (micros && gateway !== undefined)
        console.log(
          `  the gateway's PostgreSQL execution per ${short}: ${(gateway / micros).toFixed(1)}× the prototype's`,
        );
    }
  } finally {
    const exited = new Promise((resolve) => prototype.child.once('exit', resolve));
    prototype.child.kill('SIGTERM');
    await exited;
    await admin(databaseUrl, `drop database if exists ${name} with (force)`);
  }
}
