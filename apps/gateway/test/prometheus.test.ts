// A real Prometheus (Debian's `prometheus`, installed by scripts/ensure-test-tools.mjs) scrapes a running
// gateway's METRICS_PORT and answers, through its HTTP query API, the invokes and refusals this test
// drove; promtool accepts the shipped scrape config and alerting rules (deploy/prometheus) and their
// unit tests pass (issue 30).
//
// Only in the PGlite pass: nothing here depends on the database engine (metrics.test.ts checks the
// metrics themselves on both), and CI's budget has no room for starting Prometheus twice.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../../../tests/helpers/require-tool.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const deploy = new URL('../../../deploy/prometheus/', import.meta.url).pathname;
const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const missing = onPostgres ? 'DATABASE_URL is set' : requireTool('prometheus', 'promtool');

function promtool(...args: string[]): string {
  return execFileSync('promtool', args, { cwd: deploy, encoding: 'utf8', timeout: 20_000 });
}

describe.skipIf(missing)('deploy/prometheus', () => {
  it('passes promtool check config, check rules and the rules unit tests', () => {
    expect(promtool('check', 'config', 'prometheus.yml')).toContain('SUCCESS');
    expect(promtool('check', 'rules', 'rules.yml')).toMatch(/SUCCESS: \d+ rules found/);
    expect(promtool('test', 'rules', 'rules.test.yml')).toContain('SUCCESS');
  });
});

describe.skipIf(missing)('a Prometheus scraping the gateway', () => {
  const gateway = useGateway({ env: { METRICS_PORT: '0' } });
  let prometheus: ChildProcess | undefined;
  let dataDir: string;
  let api: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agw-prometheus-'));
    const target = new URL(gateway.gateway.metricsUrl as string).host;
    writeFileSync(
      join(dataDir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: agw\n    static_configs:\n      - targets: ['${target}']\n`,
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dataDir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dataDir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    await until(async () => (await fetch(`${api}/-/ready`).catch(() => undefined))?.ok === true, 'ready');
  });

  afterAll(async () => {
    if (prometheus?.exitCode === null) {
      const exited = new Promise((resolve) => prometheus?.once('exit', resolve));
      prometheus.kill('SIGKILL');
      await exited;
    }
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads back the invokes and refusals driven through the gateway', async () => {
    const { key } = await approvedInstallation(gateway);
    const invoke = (params: object) =>
      fetch(`${gateway.url}/mcp/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'core.org.current.get', params }),
      });
    for (let run = 0; run < 3; run += 1) expect((await invoke({})).status).toBe(200);
    for (let run = 0; run < 2; run += 1) expect((await invoke({ unexpected: true })).status).toBe(400);

    const succeeded =
      'sum(agw_meta_tool_calls_total{tool="invoke",capability="core.org.current.get",outcome="succeeded"})';
    const refused = 'sum(agw_guard_refusals_total{guard="schema",code="validation_failed"})';
    await until(async () => (await query(succeeded)) === 3 && (await query(refused)) === 2, 'the counts');
    expect(await query('up{job="agw"}')).toBe(1);
    expect(await query('count(nodejs_eventloop_lag_p99_seconds{job="agw"})')).toBe(1);
  });

  /** The value of an instant query with one result (undefined while it has none). */
  async function query(promql: string): Promise<number | undefined> {
    const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await response.json()) as { data: { result: { value: [number, string] }[] } };
    const [first] = body.data.result;
    return first === undefined ? undefined : Number(first.value[1]);
  }
});

/** Polls `check` every 250 ms for at most 15 s (Prometheus scrapes every second here). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Prometheus: no ${what} within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
