// `node bench/analytics-stats.mjs`: analytics.stats.read over 1 000 000 events of one property in a
// 30-day window (and 200 000 of another organization, which row-level security must skip) on
// PostgreSQL, run exactly as the gateway runs the handler: the capability's own handler, as
// `agw_runtime` with the tenant set, in a transaction. Measured twice: from the events alone (before
// any rollup, --raw-runs times), then after the domain's rollup task has rolled up the past days
// (--runs times; the partial first day and today still come from the events). Prints p50/p99 per
// window and writes bench/results/analytics-stats.md. Needs the build (`npm run build`) and
// DATABASE_URL (an admin URL); creates and drops its own database.
//   node bench/analytics-stats.mjs [--events 1000000] [--runs 30] [--raw-runs 3]
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { runMigrations } from '../apps/gateway/dist/index.js';
import { analyticsDomain } from '../packages/capabilities/dist/index.js';

const require = createRequire(new URL('../apps/gateway/package.json', import.meta.url));
const knexFactory = require('knex');
const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '30' },
    'raw-runs': { type: 'string', default: '3' },
  },
});
const events = Number(args.events);
const runs = Number(args.runs);
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('DATABASE_URL (an admin URL of PostgreSQL) is required');

const name = `agw_bench_analytics_${Date.now()}`;
const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
await admin.raw(`create database ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const knex = knexFactory({ client: 'pg', connection: url.href, pool: { min: 1, max: 2 } });
const now = new Date();
try {
  await runMigrations(knex);
  const orgs = [randomUUID(), randomUUID()];
  const properties = [randomUUID(), randomUUID()];
  await knex.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    for (const [index, org] of orgs.entries()) {
      await trx.raw(
        `insert into analytics_properties (id, organization_id, name, domains, timezone, ingestion_id, retention_days,
  created_at, updated_at) values (?, ?, 'Bench', '["bench.example"]', 'Europe/Berlin', ?, 400, now(), now())`,
        [properties[index], org, `ap_bench_${index}`],
      );
      // Spread evenly over the 30 days before now: visits of 4 events (10 s apart on the full
      // property) by one of 20 000 people, with visitor ids scoped to the local day as ingestion makes
      // them; 50 paths, 4 referrers, a signup and an error now and then.
      await trx.raw(
        `insert into analytics_events (id, organization_id, property_id, occurred_at, received_at, name, category,
  source, outcome, host, path, referrer_host, visitor_id, properties)
select gen_random_uuid(), ?, ?, ?::timestamptz - (i * (30 * 86400.0 / ?)) * interval '1 second', now(),
  case when i % 50 = 0 then 'signup' when i % 97 = 0 then 'checkout_failed' else 'pageview' end,
  case when i % 97 = 0 then 'payment' end, null, case when i % 97 = 0 then 'error' end,
  'bench.example', '/page/' || (i % 50),
  (array[null, 'www.google.com', 'news.ycombinator.com', 'duckduckgo.com'])[1 + i % 4],
  md5(((?::timestamptz - (i * (30 * 86400.0 / ?)) * interval '1 second') at time zone 'Europe/Berlin')::date
    || ':' || ((i / 4) % 20000)), '{}'
from generate_series(1, ?) as i`,
        [
          org,
          properties[index],
          now,
          index === 0 ? events : events / 5,
          now,
          index === 0 ? events : events / 5,
          index === 0 ? events : events / 5,
        ],
      );
    }
  });
  await knex.raw('analyze analytics_events');

  const handler = analyticsDomain.handlers.find(
    (candidate) => candidate.contract.id === 'analytics.stats.read',
  );
  const connection = await knex.client.acquireConnection();
  const sql = {
    query: async (text, params = []) => {
      const result = await connection.query(text, params);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
  };
  // CPU time of the PostgreSQL backend serving the reads and of this process: on a shared machine the
  // wall-clock times include waiting for a core, the CPU time per read does not.
  const backend = (await connection.query('select pg_backend_pid() as pid')).rows[0].pid;
  const backendCpuMs = () => {
    const fields = readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const ownCpuMs = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const run = async (input) => {
    await connection.query('begin');
    await connection.query('set local role agw_runtime');
    await connection.query(`select set_config('agw.organization_id', $1, true)`, [orgs[0]]);
    const started = performance.now();
    const result = await handler.handle(input, { organizationId: orgs[0], now, sql });
    const took = performance.now() - started;
    await connection.query('commit');
    return { took, result };
  };
  const lines = [
    `# analytics.stats.read over ${events} events (30 days), ${new Date().toISOString()}`,
    '',
    '| read from | window | granularity | runs | p50 ms | p99 ms | CPU ms per read (PostgreSQL + gateway) | events counted |',
    '|---|---|---|---:|---:|---:|---:|---:|',
  ];
  const from = new Date(now.getTime() - 30 * 86_400_000).toISOString();
  const windows = [
    ['30 days', { from, to: now.toISOString(), granularity: 'day' }],
    ['7 days', { granularity: 'day' }],
    [
      '1 day',
      {
        from: new Date(now.getTime() - 86_400_000).toISOString(),
        to: now.toISOString(),
        granularity: 'hour',
      },
    ],
  ];
  const measure = async (source, count) => {
    for (const [label, input] of windows) {
      await run(input);
      const times = [];
      let counted = 0;
      const cpuBefore = [backendCpuMs(), ownCpuMs()];
      for (let i = 0; i < count; i += 1) {
        const { took, result } = await run(input);
        times.push(took);
        counted = result.totals.events;
      }
      const cpu = [(backendCpuMs() - cpuBefore[0]) / count, (ownCpuMs() - cpuBefore[1]) / count];
      times.sort((a, b) => a - b);
      const pick = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(0);
      lines.push(
        `| ${source} | ${label} | ${input.granularity} | ${count} | ${pick(0.5)} | ${pick(0.99)} | ` +
          `${cpu[0].toFixed(0)} + ${cpu[1].toFixed(0)} | ${counted} |`,
      );
      console.info(lines.at(-1));
    }
  };
  await measure('events only', Number(args['raw-runs']));

  // The domain's own rollup task, as the gateway runs it (its role, outside row-level security).
  const admin = await knex.client.acquireConnection();
  // The bench's organizations exist only as ids (the events were loaded without foreign-key checks).
  await admin.query('set session_replication_role = replica');
  const adminSql = {
    query: async (text, params = []) => {
      const result = await admin.query(text, params);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
    async transaction(fn) {
      await admin.query('begin');
      try {
        const value = await fn(adminSql);
        await admin.query('commit');
        return value;
      } catch (error) {
        await admin.query('rollback');
        throw error;
      }
    },
  };
  const service = analyticsDomain.start({
    sql: adminSql,
    asTenant: () => Promise.reject(new Error('not used')),
    rateLimit: async () => ({ allowed: true, retryAfterSeconds: 0 }),
    publicBaseUrl: 'http://bench.invalid',
    ids: { uuid: randomUUID },
    clock: { now: () => now },
    log: { info() {}, warn() {}, error: (fields, message) => console.error(message, fields) },
  });
  const rollupStarted = performance.now();
  await service.tasks.find((task) => task.name === 'analytics.rollup').run();
  const rolledDays = (await admin.query('select count(*)::int as n from analytics_rollup_days')).rows[0].n;
  const rollupRows = (await admin.query('select count(*)::int as n from analytics_rollups')).rows[0].n;
  await admin.query('analyze analytics_rollups');
  await admin.query('analyze analytics_rollup_days');
  knex.client.releaseConnection(admin);
  lines.push(
    '',
    `Rollup task: ${rolledDays} days of both properties, ${rollupRows} rollup rows, in ${((performance.now() - rollupStarted) / 1000).toFixed(1)} s.`,
    '',
    '| read from | window | granularity | runs | p50 ms | p99 ms | CPU ms per read (PostgreSQL + gateway) | events counted |',
    '|---|---|---|---:|---:|---:|---:|---:|',
  );
  console.info(lines.at(-4));
  await measure('rollups + events of partial days', runs);
  knex.client.releaseConnection(connection);
  const report = lines.join('\n');
  console.info(report);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/analytics-stats.md', import.meta.url), `${report}\n`);
} finally {
  await knex.destroy();
  await admin.raw(`drop database if exists ${name} with (force)`);
  await admin.destroy();
}
