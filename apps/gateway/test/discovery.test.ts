// Every discovery endpoint over real HTTP: status, content type, and the body against its contracts
// schema; HEAD and OPTIONS; the request id header. Error cases live in errors.test.ts.
import { capabilityHandlers } from '@agw/capabilities';
import { type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { expectSchema, UUID_V4 } from './helpers/http.js';
import { captureLog } from './helpers/log-capture.js';

let environment: TestEnvironment;
let gateway: GatewayHandle;
const PUBLIC_BASE_URL = 'https://agents.example.test';

beforeAll(async () => {
  environment = await createTestEnvironment();
  const config = loadConfig({ ...environment.env, PUBLIC_BASE_URL });
  gateway = await startGateway(config, { logger: captureLog().logger });
});

afterAll(async () => {
  await gateway?.close();
  await environment?.cleanup();
});

describe('GET /health', () => {
  it('answers 200 with a HealthResponse naming the database driver and each dependency', async () => {
    const response = await fetch(`${gateway.url}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as Record<string, unknown>;
    expectSchema('HealthResponse', body);
    expect(body).toMatchObject({
      status: 'ok',
      service: 'agent-gateway',
      domain: 'agents.example.test',
      interface_version: '1.0',
      checks: {
        database: { status: 'ok', driver: environment.usesPostgres ? 'postgres' : 'pglite' },
        redis: { status: process.env.REDIS_URL ? 'ok' : 'not_configured' },
        mail: { status: 'ok', transport: 'dev_mailbox' },
      },
    });
  });
});

describe('static discovery documents', () => {
  it.each([
    ['/capabilities', 'CapabilityCatalog'],
    ['/mcp/manifest', 'McpManifest'],
    ['/mcp/tools', 'McpTools'],
  ] as const)('GET %s answers 200 JSON valid against %s', async (path, schema) => {
    const response = await fetch(`${gateway.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expectSchema(schema, await response.json());
  });

  it('GET /capabilities reports interface 1.0 with meta-tools and capabilities', async () => {
    const catalog = (await (await fetch(`${gateway.url}/capabilities`)).json()) as Record<string, unknown>;
    expect(catalog.interface_version).toBe('1.0');
    expect(catalog).toHaveProperty('schema_version');
    expect(catalog).toHaveProperty('snapshot');
    expect(catalog).toHaveProperty('totals');
    expect((catalog.capabilities as unknown[]).length).toBeGreaterThan(0);
  });

  it('GET /capabilities lists exactly the capabilities search_capabilities finds (those with a handler)', async () => {
    const catalog = (await (await fetch(`${gateway.url}/capabilities`)).json()) as {
      capabilities: Array<{ id: string }>;
      totals: { capabilities: number };
    };
    const search = (await (
      await fetch(`${gateway.url}/mcp/search_capabilities`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ limit: 50 }),
      })
    ).json()) as { results: Array<{ id: string }>; total: number };
    const ids = (items: Array<{ id: string }>) => items.map((item) => item.id).sort();
    expect(ids(catalog.capabilities)).toEqual(ids(search.results));
    expect(catalog.totals.capabilities).toBe(search.total);
    expect(ids(catalog.capabilities)).toEqual(ids(capabilityHandlers.map((handler) => handler.contract)));
  });

  it('GET /openapi.json answers an OpenAPI 3.1 document whose server is PUBLIC_BASE_URL', async () => {
    const response = await fetch(`${gateway.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      servers: Array<{ url: string }>;
      paths: object;
    };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.servers[0]?.url).toBe(PUBLIC_BASE_URL);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/health', '/register', '/mcp/invoke']),
    );
  });

  it('GET /llms.txt is plain text that walks an agent through onboarding with the public base URL', async () => {
    const response = await fetch(`${gateway.url}/llms.txt`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await response.text();
    for (const fragment of [
      `curl -sS -X POST ${PUBLIC_BASE_URL}/register`,
      `${PUBLIC_BASE_URL}/organizations`,
      `${PUBLIC_BASE_URL}/owner-otp/claim`,
      `${PUBLIC_BASE_URL}/agent-otp/verify`,
      `${PUBLIC_BASE_URL}/org/current`,
      'Ref: <correlation_id>',
      'Code: <OTP>',
      'first poll 30 seconds',
      'at most one poll per\n   60 seconds',
      '15 minutes',
      'blocked',
      'suppressed',
      'is_active is false',
      'cannot be recovered',
      '/mcp/search_capabilities',
      '/mcp/describe',
      '/mcp/dry_run',
      '/mcp/invoke',
      'wallet.agent_budget.guard.check',
      'Idempotency-Key',
      '"audit_id"',
      // Where the codes land on the embedded default.
      '`.data/mail/*.eml`',
      'npm run agw -- mail list',
    ]) {
      expect(text).toContain(fragment);
    }
    expect(text).not.toContain('127.0.0.1');
    // Every example runs as written (llms-txt-examples.test.ts): no tool many machines lack, no elision.
    expect(text).not.toContain('uuidgen');
    expect(text).not.toContain('...same');
  });
});

describe('HTTP behaviour shared by every endpoint', () => {
  it('echoes a sane X-Request-Id and generates a UUID v4 otherwise', async () => {
    const echoed = await fetch(`${gateway.url}/health`, { headers: { 'X-Request-Id': 'client-req.42' } });
    expect(echoed.headers.get('x-request-id')).toBe('client-req.42');
    const replaced = await fetch(`${gateway.url}/health`, {
      headers: { 'X-Request-Id': 'bad id with spaces' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(UUID_V4);
    const generated = await fetch(`${gateway.url}/mcp/tools`);
    expect(generated.headers.get('x-request-id')).toMatch(UUID_V4);
  });

  it('sets nosniff and no-store', async () => {
    const response = await fetch(`${gateway.url}/capabilities`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('answers HEAD like GET without a body', async () => {
    const get = await fetch(`${gateway.url}/llms.txt`);
    const head = await fetch(`${gateway.url}/llms.txt`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('answers OPTIONS on a known path with its Allow header', async () => {
    const response = await fetch(`${gateway.url}/health`, { method: 'OPTIONS' });
    expect(response.status).toBe(200);
    expect(response.headers.get('allow')).toBe('HEAD, GET');
  });
});
