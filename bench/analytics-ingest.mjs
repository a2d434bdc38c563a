// `node bench/analytics-ingest.mjs`: only the ingestion scenario of `npm run bench` (POST /a/events, one
// page view as the tracker sends it), with the bare Koa echo measured in the same run, on the embedded
// default and/or PostgreSQL + Redis (DATABASE_URL and REDIS_URL of the environment; a fresh database is
// created and dropped). Prints req/s, its share of the echo measured right before and after it, and
// CPU µs per request of the gateway process, and of that PostgreSQL server and that Redis (not of other
// servers on a shared machine), which is steadier than req/s on a shared machine. --cpu-prof writes a
// V8 CPU profile of the gateway to bench/results/profiles/.
//   node bench/analytics-ingest.mjs [--modes embedded,postgres] [--duration 10] [--connections 32] [--cpu-prof]
import { fork, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuMicros, postgresServer, postmasterOf, processWithPid } from './cpu.mjs';
import { scenarios } from './scenarios.mjs';

const root = new URL('..', import.meta.url).pathname;
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    modes: { type: 'string', default: 'embedded,postgres' },
    'cpu-prof': { type: 'boolean', default: false },
  },
});
const duration = Number(args.duration);
const connections = Number(args.connections);
const scenario = scenarios.find((candidate) => candidate.name.startsWith('POST /a/events'));

async function load(url, request, pid, services = {}) {
  const options = { url, connections, method: request.method, headers: request.headers, body: request.body };
  await autocannon({ ...options, duration: 2 }); // warm-up
  const groups = {
    server: processWithPid(pid),
    postgres: services.postmaster === undefined ? () => false : postgresServer(services.postmaster),
    redis: (_pid, _parent, command) =>
      services.redisPort !== undefined &&
      command.startsWith('redis-server') &&
      command.includes(`:${services.redisPort}`),
  };
  const before = Object.values(groups).map(cpuMicros);
  const result = await autocannon({ ...options, duration });
  const requests = Math.max(result.requests.total, 1);
  const cpu = Object.keys(groups).map(
    (name, index) => `${name} ${Math.round((cpuMicros(groups[name]) - before[index]) / requests)}`,
  );
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    // Which statuses: a 503 says the writer fell behind (its queue was full), a 429 the address limit.
    non2xx: [
      result.non2xx,
      ...Object.entries(result.statusCodeStats ?? {})
        .filter(([status]) => !status.startsWith('2'))
        .map(([status, { count }]) => `(${status}: ${count})`),
    ].join(' '),
    cpu: cpu.join(', '),
  };
}

async function stop(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const pg = createRequire(join(root, 'apps/gateway/package.json'))('pg');
async function admin(url, sql) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const echoRequest = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ id: 'core.org.current.get', params: {} }),
};
// The echo keeps running: each mode's share is taken against the echo measured right before and after
// it (half the duration each), as in `npm run bench`.
const echo = fork(join(root, 'bench/echo-server.mjs'), { stdio: 'ignore' });
const echoPort = await new Promise((resolve) => echo.once('message', ({ port }) => resolve(port)));
const echoUrl = `http://127.0.0.1:${echoPort}`;
const echoResult = await load(echoUrl, echoRequest, echo.pid);
console.info(
  `echo POST: ${echoResult.rps} req/s, p99 ${echoResult.p99} ms, CPU µs/request: ${echoResult.cpu}`,
);
async function echoNow() {
  const result = await autocannon({ url: echoUrl, connections, ...echoRequest, duration: duration / 2 });
  return Math.round(result.requests.average);
}

for (const mode of args.modes.split(',')) {
  const { DATABASE_URL, REDIS_URL, ...rest } = process.env;
  const env = { ...rest, LOG_LEVEL: 'warn', ANALYTICS_EVENTS_PER_MINUTE: '99999999' };
  let database;
  const services = {};
  if (mode === 'postgres') {
    if (!DATABASE_URL || !REDIS_URL) throw new Error('postgres mode needs DATABASE_URL and REDIS_URL');
    database = `agw_bench_ingest_${Date.now().toString(36)}`;
    await admin(DATABASE_URL, `create database ${database}`);
    const url = new URL(DATABASE_URL);
    url.pathname = `/${database}`;
    Object.assign(env, { DATABASE_URL: url.href, REDIS_URL });
    services.postmaster = await postmasterOf(DATABASE_URL);
    services.redisPort = new URL(REDIS_URL).port || '6379';
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'agw-bench-'));
  // `agw serve` records itself for other shells: in the run's own folder, not the user's.
  env.XDG_STATE_HOME = dataDir;
  const port = 18080 + Math.floor(Math.random() * 1000);
  const profiles = join(root, 'bench/results/profiles');
  if (args['cpu-prof']) mkdirSync(profiles, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      ...(args['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', profiles] : []),
      join(root, 'apps/cli/dist/bin.js'),
      'serve',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
    ],
    { env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    for (let attempt = 0; ; attempt += 1) {
      if (
        await fetch(`${baseUrl}/health`).then(
          (response) => response.ok,
          () => false,
        )
      )
        break;
      if (attempt > 240) throw new Error('the gateway did not answer /health within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const request = await scenario.prepare(baseUrl, { url: baseUrl, dataDir, child });
    if (request.skip) throw new Error(request.skip);
    const before = await echoNow();
    const result = await load(`${baseUrl}${request.path}`, request, child.pid, services);
    const after = await echoNow();
    const share = result.rps / ((before + after) / 2);
    console.info(
      `${mode} ${scenario.name}: ${result.rps} req/s (${share.toFixed(2)} of the echo around it: ${before} / ${after}), ` +
        `p99 ${result.p99} ms, non-2xx ${result.non2xx}, CPU µs/request: ${result.cpu}`,
    );
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
    if (database) await admin(DATABASE_URL, `drop database if exists ${database} with (force)`);
  }
}
await stop(echo);
