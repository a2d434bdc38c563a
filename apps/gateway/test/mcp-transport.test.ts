// /mcp at the HTTP level: protocol versions 2025-06-18 and 2025-11-25, DNS-rebinding protection (Host
// and Origin), GET/DELETE in stateless mode, the body limit and JSON-RPC errors for bad messages —
// never a 500.

import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { connectMcp, rawMcp } from './helpers/mcp.js';

const gateway = useGateway({ env: { BODY_LIMIT_BYTES: '4096' } });

const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
});
const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

/** A POST with a Host header of the test's choosing (fetch always sends the real one). */
function postWithHost(host: string, origin?: string): Promise<{ status: number; body: string }> {
  const url = new URL('/mcp', gateway.url);
  const body = JSON.stringify(initialize('2025-06-18'));
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        headers: {
          Host: host,
          ...(origin ? { Origin: origin } : {}),
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('protocol versions', () => {
  for (const version of ['2025-06-18', '2025-11-25']) {
    it(`negotiates ${version} and serves tools/list under it`, async () => {
      const initialized = await rawMcp(gateway.url, initialize(version));
      expect(initialized.status).toBe(200);
      expect(initialized.json.result).toMatchObject({
        protocolVersion: version,
        serverInfo: { name: 'agent-gateway' },
        capabilities: { tools: { listChanged: false } },
      });
      expect(initialized.headers.get('mcp-session-id')).toBeNull();
      const listed = await rawMcp(gateway.url, listTools, { 'MCP-Protocol-Version': version });
      expect(listed.status).toBe(200);
      expect(listed.json.result.tools.map((tool: { name: string }) => tool.name)).toEqual([
        'search_capabilities',
        'describe',
      ]);
    });
  }

  it('the official client negotiates 2025-11-25, the newest version', async () => {
    const client = await connectMcp(gateway.url);
    // biome-ignore lint/suspicious/noExplicitAny: the negotiated version is not public API.
    expect((client.transport as any).protocolVersion).toBe('2025-11-25');
    await client.close();
  });

  it('answers an unknown requested version with its newest; refuses an unknown version header', async () => {
    const initialized = await rawMcp(gateway.url, initialize('2024-01-01'));
    expect(initialized.json.result.protocolVersion).toBe('2025-11-25');
    const refused = await rawMcp(gateway.url, listTools, { 'MCP-Protocol-Version': '1999-01-01' });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });
});

describe('DNS-rebinding protection', () => {
  it('refuses a foreign Origin with 403 origin_forbidden', async () => {
    const refused = await rawMcp(gateway.url, initialize('2025-06-18'), {
      Origin: 'https://evil.example.com',
    });
    expect(refused.status).toBe(403);
    expectEnvelope(refused.json, 'origin_forbidden');
    const nullOrigin = await rawMcp(gateway.url, initialize('2025-06-18'), { Origin: 'null' });
    expect(nullOrigin.status).toBe(403);
  });

  it('accepts no Origin, a loopback Origin and the public base URL', async () => {
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:3000', new URL(gateway.url).origin]) {
      expect((await rawMcp(gateway.url, initialize('2025-06-18'), { Origin: origin })).status).toBe(200);
    }
  });

  it('refuses a foreign Host with 403, accepts loopback names', async () => {
    const refused = await postWithHost('evil.example.com');
    expect(refused.status).toBe(403);
    expectEnvelope(JSON.parse(refused.body), 'origin_forbidden');
    expect((await postWithHost('evil.example.com:80', 'http://evil.example.com')).status).toBe(403);
    expect((await postWithHost('localhost:1234')).status).toBe(200);
    expect((await postWithHost('[::1]')).status).toBe(200);
  });
});

describe('stateless transport', () => {
  it('answers GET and DELETE 405 with Allow: POST (no stream to open, no session to end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(new URL('/mcp', gateway.url), {
        method,
        headers: { Accept: 'text/event-stream' },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expectEnvelope(await response.json(), 'method_not_allowed');
    }
  });

  it('answers a notification 202 without a body', async () => {
    const answer = await rawMcp(
      gateway.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'MCP-Protocol-Version': '2025-06-18' },
    );
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
  });
});

describe('bad requests', () => {
  it('answers malformed JSON and non-JSON-RPC bodies with JSON-RPC parse errors, never a 500', async () => {
    const malformed = await rawMcp(gateway.url, '{"jsonrpc": "2.0",');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const notRpc = await rawMcp(gateway.url, { hello: 'world' });
    expect(notRpc.status).toBe(400);
    expect(notRpc.json.error.code).toBe(-32700);
    expect(notRpc.text).not.toMatch(/at .*\.(ts|js):\d+/);
    const row = await gateway
      .knex('audit_events')
      .where({ request_id: malformed.headers.get('x-request-id') })
      .first();
    expect(row).toMatchObject({ action: 'http.request', outcome: 'failed', http_status: 400 });
    const details = typeof row.details === 'string' ? JSON.parse(row.details) : row.details;
    expect(details).toMatchObject({ code: 'jsonrpc_error', jsonrpc_code: -32700, path: '/mcp' });
  });

  it('answers an unknown method with JSON-RPC method not found', async () => {
    const answer = await rawMcp(
      gateway.url,
      { jsonrpc: '2.0', id: 3, method: 'resources/list' },
      { 'MCP-Protocol-Version': '2025-06-18' },
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: 3, error: { code: -32601 } });
  });

  it('refuses a body over BODY_LIMIT_BYTES with 413 and a client that accepts no JSON with 406', async () => {
    const big = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'search_capabilities', arguments: { query: 'x'.repeat(5000) } },
    };
    const tooLarge = await rawMcp(gateway.url, big, { 'MCP-Protocol-Version': '2025-06-18' });
    expect(tooLarge.status).toBe(413);
    expectEnvelope(tooLarge.json, 'payload_too_large');
    const notAcceptable = await rawMcp(gateway.url, initialize('2025-06-18'), { Accept: 'text/html' });
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.json.error.code).toBe(-32000);
  });
});
