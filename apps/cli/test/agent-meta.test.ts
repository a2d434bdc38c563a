// search and describe against the real in-process gateway; dry-run and invoke against a small fake
// HTTP server that records exactly what the CLI sends (the same commands against the real gateway:
// agent-invoke-e2e.test.ts). Params parsing: inline JSON,
// @file, `-` from a real piped stdin (spawned), and bad JSON / non-objects → exit 2 before any request.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../src/commands/invoke.js';
import { runCli, spawnCli } from './helpers/run-cli.js';
import { captureContext, startTestGateway, type TestGateway } from './helpers/test-gateway.js';

const FAKE_KEY = 'agw_ik_fakefakefakefakefakefake.secretsecretsecretsecret';

interface Recorded {
  path: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  body: Record<string, unknown>;
}

let test: TestGateway;
let fake: Server;
let fakeUrl: string;
let workDir: string;
const recorded: Recorded[] = [];

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on('end', () => resolve(text));
  });
}

/** The spec's DryRunResponse / InvokeResponse for whatever was asked. */
async function fakeMetaTools(request: IncomingMessage, response: import('node:http').ServerResponse) {
  const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
  recorded.push({
    path: request.url ?? '',
    authorization: request.headers.authorization,
    idempotencyKey: request.headers['idempotency-key'] as string | undefined,
    body,
  });
  const common = {
    interface_version: '1.0',
    capability_id: body.id,
    resolved_version: '1.0.0',
    audit_id: 'aud_fake_1',
  };
  const answer =
    request.url === '/mcp/dry_run'
      ? { ...common, valid: false, violations: [{ pointer: '/amount', message: 'must be >= 1' }] }
      : { ...common, status: 'succeeded', result: { echoed: body.params }, cost: { credits: '2' } };
  response.writeHead(200, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(answer));
}

beforeAll(async () => {
  test = await startTestGateway();
  workDir = await mkdtemp(join(tmpdir(), 'agw-cli-meta-'));
  fake = createServer((request, response) => {
    void fakeMetaTools(request, response);
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => fake?.close(resolve));
  await test?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function fakeEnv() {
  return { XDG_CONFIG_HOME: workDir, AGW_URL: fakeUrl, AGW_KEY: FAKE_KEY };
}

describe('agw search / describe (real gateway)', () => {
  it('search lists capabilities as a table and as JSON; describe shows one with its schemas', async () => {
    const env = { ...test.env, XDG_CONFIG_HOME: workDir };
    const json = await runCli(['search', '--limit', '3', '--json'], env);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const found = JSON.parse(json.stdout) as { results: Array<{ id: string }>; total: number };
    expect(found.results.length).toBeGreaterThan(0);
    expect(found.results.length).toBeLessThanOrEqual(3);
    const id = found.results[0]?.id as string;

    const table = await runCli(['search', '--limit', '3'], env);
    expect(table.stdout).toMatch(/^ID\s+VERSION\s+RISK\s+ACCESS\s+SUMMARY\n/);
    expect(table.stdout).toContain(id);
    expect(table.stdout).toContain(`${found.results.length} of ${found.total}`);

    const described = await runCli(['describe', id], env);
    expect(described.code).toBe(0);
    expect(described.stdout).toMatch(new RegExp(`^id\\s+${id.replaceAll('.', '\\.')} `));
    expect(described.stdout).toContain('input schema');

    const unknown = await runCli(['describe', 'no.such.capability', '--json'], env);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toMatch(/HTTP 404/);
  });

  it('search refuses a bad --limit and --risk-max with exit 2', async () => {
    const env = { ...test.env, XDG_CONFIG_HOME: workDir };
    expect((await runCli(['search', '--limit', '0'], env)).code).toBe(2);
    const risk = await runCli(['search', '--risk-max', 'extreme'], env);
    expect(risk.code).toBe(2);
    expect(risk.stderr).toContain('Allowed choices are low, medium, high, critical');
  });
});

describe('agw dry-run / invoke (fake server) and params', () => {
  it('dry-run sends inline params with the key and shows the violations', async () => {
    recorded.length = 0;
    const result = await runCli(['dry-run', 'wallet.x.check', '{"amount": 0}'], fakeEnv());
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/valid\s+no/);
    expect(result.stdout).toContain('must be >= 1');
    expect(recorded).toEqual([
      expect.objectContaining({
        path: '/mcp/dry_run',
        authorization: `Bearer ${FAKE_KEY}`,
        body: { id: 'wallet.x.check', params: { amount: 0 } },
      }),
    ]);
  });

  it('invoke reads @file params and sends the given idempotency key', async () => {
    recorded.length = 0;
    const file = join(workDir, 'params.json');
    await writeFile(file, '{"to": "a@example.com", "count": 2}');
    const captured = captureContext(fakeEnv());
    await invoke(
      'mail.send',
      `@${file}`,
      { json: true, idempotencyKey: 'order-2026-11-22-0001' },
      { ...captured.context, readStdin: async () => '' },
    );
    expect(JSON.parse(captured.stdout())).toMatchObject({
      status: 'succeeded',
      result: { echoed: { count: 2 } },
    });
    expect(recorded[0]?.body).toMatchObject({
      params: { to: 'a@example.com', count: 2 },
      idempotency_key: 'order-2026-11-22-0001',
    });
  });

  it('invoke reads params from a piped stdin with -', async () => {
    recorded.length = 0;
    const child = spawnCli(['invoke', 'mail.send', '-'], fakeEnv(), { stdin: 'pipe' });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stdin?.end('{"from_stdin": true}\n');
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/status\s+succeeded/);
    expect(recorded[0]?.body.params).toEqual({ from_stdin: true });
    expect(stdout).not.toContain(FAKE_KEY);
  });

  it.each([
    [['dry-run', 'x.y.z', '{"amount": 5'], /params in the params argument are not valid JSON/],
    [['invoke', 'x.y.z', '[1, 2]'], /params in the params argument must be a JSON object, got an array/],
    [
      ['invoke', 'x.y.z', '@/nonexistent/params.json'],
      /cannot read params file \/nonexistent\/params.json: ENOENT/,
    ],
  ])('%j exits 2 with a clear message and sends nothing', async (args, message) => {
    recorded.length = 0;
    const result = await runCli(args, fakeEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(recorded).toEqual([]);
  });

  it('dry-run without any key exits 2 and says how to get one', async () => {
    const result = await runCli(['dry-run', 'x.y.z', '{}'], { XDG_CONFIG_HOME: workDir, AGW_URL: fakeUrl });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no installation key in profile');
  });
});
