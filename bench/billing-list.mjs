// `node bench/billing-list.mjs`: billing.document.list / search over 100 000 documents of one
// organization (and 100 000 of another, which row-level security must skip) on PostgreSQL, run exactly
// as the handler runs them: as `agw_runtime` with the tenant set, the same query texts
// (documentQueryText with documentQueryValues), every sort in both directions, the open filter, the
// status filter (a document status, a payment status, overdue), a date range and a search. Prints p50/p99 per
// query and writes bench/results/billing-list.md. Needs the build (`npm run build`) and DATABASE_URL
// (an admin URL); creates and drops its own database.
//   node bench/billing-list.mjs [--documents 100000] [--runs 200]
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { runMigrations } from '../apps/gateway/dist/index.js';
import { documentQueryText, documentQueryValues } from '../packages/capabilities/dist/index.js';

const require = createRequire(new URL('../apps/gateway/package.json', import.meta.url));
const knexFactory = require('knex');
const pg = require('pg');
const { values: args } = parseArgs({
  options: { documents: { type: 'string', default: '100000' }, runs: { type: 'string', default: '200' } },
});
const documents = Number(args.documents);
const runs = Number(args.runs);
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('DATABASE_URL (an admin URL of PostgreSQL) is required');

const name = `agw_bench_billing_${Date.now()}`;
const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
await admin.raw(`create database ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const knex = knexFactory({ client: 'pg', connection: url.href, pool: { min: 1, max: 1 } });
try {
  await runMigrations(knex);
  const orgs = [randomUUID(), randomUUID()];
  const installation = randomUUID();
  // Foreign keys to organizations/installations are not what is measured: the rows are inserted
  // with triggers (and so FK checks) off, as a superuser may.
  await knex.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    for (const org of orgs) {
      await trx.raw(
        `insert into billing_documents (id, organization_id, installation_id, document_type, status, payment_status,
  number, title, document_date, currency, counterparty_name, tax_treatment, subtotal, discount_total, net_total,
  tax_total, reverse_charge_tax_total, total, balance, due_date, created_at)
select gen_random_uuid(), ?, ?, (array['quote','sales_order','invoice','invoice','credit_note'])[1 + i % 5],
  (array['draft','open','partially_paid','paid','void'])[1 + (i / 7) % 5],
  (array['unpaid','unpaid','partial','paid','not_applicable'])[1 + (i / 7) % 5],
  'RE-' || (2020 + i % 7) || '-' || lpad(i::text, 6, '0'), 'Project ' || (i % 997),
  date '2020-01-01' + (i % 2500), 'EUR', 'Customer ' || (i % 5003) || ' GmbH', 'domestic',
  (i % 10000) + 0.5, 0, (i % 10000) + 0.5, 0, 0, (i % 10000) * 1.19, (i % 3) * 10,
  date '2020-01-01' + (i % 2500) + 14, timestamp '2020-01-01' + (i || ' minutes')::interval
from generate_series(1, ?) as i`,
        [org, installation, documents],
      );
    }
  });
  await knex.raw('analyze billing_documents');

  const cases = [];
  for (const sortBy of ['created_at', 'document_date', 'total', 'number', 'counterparty_name', 'status']) {
    for (const ascending of [false, true]) cases.push({ sortBy, ascending, openFilter: 'all', search: null });
  }
  cases.push({ sortBy: 'document_date', ascending: false, openFilter: 'open', search: null });
  // The status filter: a document status, a payment status, overdue (computed from the due date),
  // and a status within a month of document dates.
  cases.push({ sortBy: 'created_at', ascending: false, openFilter: 'all', status: 'partially_paid' });
  cases.push({ sortBy: 'document_date', ascending: false, openFilter: 'all', status: 'unpaid' });
  cases.push({ sortBy: 'document_date', ascending: false, openFilter: 'all', status: 'overdue' });
  cases.push({ sortBy: 'total', ascending: false, openFilter: 'all', status: 'overdue' });
  cases.push({
    sortBy: 'document_date',
    ascending: true,
    openFilter: 'all',
    status: 'open',
    dateFrom: '2023-03-01',
    dateTo: '2023-03-31',
  });
  cases.push({ sortBy: 'created_at', ascending: false, openFilter: 'all', search: 'customer 42' });
  cases.push({ sortBy: 'created_at', ascending: false, openFilter: 'all', search: 'RE-2024-000123' });

  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  const rows = [];
  for (const c of cases) {
    const text = documentQueryText(c.sortBy, c.ascending, c.openFilter);
    const input = {
      ...(c.search ? { search: c.search } : {}),
      ...(c.status ? { status: c.status } : {}),
      ...(c.dateFrom ? { date_from: c.dateFrom, date_to: c.dateTo } : {}),
      limit: 20,
    };
    const params = documentQueryValues(orgs[0], input, new Date().toISOString().slice(0, 10));
    const times = [];
    let count = 0;
    for (let run = 0; run < runs + 10; run += 1) {
      const started = process.hrtime.bigint();
      await client.query('begin');
      await client.query(
        "select set_config('role', 'agw_runtime', true), set_config('agw.organization_id', $1, true)",
        [orgs[0]],
      );
      count = (await client.query(text, params)).rows.length;
      await client.query('commit');
      if (run >= 10) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
    const filters = [
      c.status ? `status=${c.status}` : `open_filter=${c.openFilter}`,
      c.dateFrom ? `${c.dateFrom}..${c.dateTo}` : null,
    ].filter(Boolean);
    const label = `${c.search ? `search "${c.search}"` : `list ${filters.join(' ')}`} by ${c.sortBy} ${c.ascending ? 'asc' : 'desc'}`;
    rows.push(`| ${label} | ${count} | ${at(0.5)} | ${at(0.99)} |`);
    console.log(rows.at(-1));
  }
  await client.end();
  const report = [
    `# billing.document.list / search over ${documents} documents (PostgreSQL)`,
    '',
    `${documents} documents in the measured organization and ${documents} in another; ${runs} runs per query`,
    'after 10 warm-up runs, each one transaction as agw_runtime with the tenant set (BEGIN, set_config,',
    'the query, COMMIT), over one local connection; milliseconds.',
    '',
    '| query (page of 20) | rows | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/billing-list.md', import.meta.url), report);
} finally {
  await knex.destroy();
  await admin.raw(`drop database ${name} with (force)`);
  await admin.destroy();
}
