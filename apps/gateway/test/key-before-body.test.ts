// Issue 12, finding 3: the key is checked before the body is read. A caller without a (valid) key is
// answered from the headers alone — 401 in milliseconds with Connection: close, never after reading a
// 14 MB body — and /health stays fast while four such requests arrive; an anonymous caller where the
// route allows one gets a 64 KiB limit; an authenticated caller keeps the full limits.

import { ANONYMOUS_BODY_LIMIT_BYTES } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { type RawAnswer, rawRequest } from './helpers/raw-http.js';

const gateway = useGateway();
const FOURTEEN_MB = 14 * 1024 * 1024;
let key: string;

beforeAll(async () => {
  ({ key } = await approvedInstallation(gateway));
});

/** Declares `declared` bytes, sends only a few: an answer can only come from the headers. */
const declaredOnly = (path: string, headers: Record<string, string> = {}, declared = FOURTEEN_MB) =>
  rawRequest(gateway.url, {
    path,
    headers: {
      'Content-Type': 'application/json',
      'Content-Length': String(declared),
      'Idempotency-Key': 'key-before-body-0001',
      ...headers,
    },
    body: '{"id":"core.',
  });

async function expectRefusedUnread(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expectEnvelope(JSON.parse(answer.body), code);
  expect(answer.headers.connection).toBe('close');
  expect(answer.ms).toBeLessThan(1000);
  await answer.closed; // the server ends the connection instead of draining 14 MB
}

describe('a request without a valid key is refused before its body is read', () => {
  it.each([
    '/mcp/dry_run',
    '/mcp/invoke',
    '/organizations',
    '/owner-otp/claim',
    '/owner-otp/resend',
    '/agent-otp/verify',
    '/keys/rotate',
    '/admin/access',
  ])('POST %s, 14 MB declared, no Authorization → 401 at once', async (path) => {
    await expectRefusedUnread(await declaredOnly(path), 401, 'unauthenticated');
  });

  it('an invalid key is refused the same way (meta-tools, access, MCP endpoint)', async () => {
    const bad = { Authorization: 'Bearer agw_ak_AAAAAAAAAAAA.not-a-real-secret' };
    await expectRefusedUnread(await declaredOnly('/mcp/invoke', bad), 401, 'invalid_api_key');
    await expectRefusedUnread(await declaredOnly('/keys/rotate', bad), 401, 'invalid_api_key');
    await expectRefusedUnread(
      await declaredOnly('/mcp', { ...bad, Accept: 'application/json, text/event-stream' }),
      401,
      'invalid_api_key',
    );
  });

  it('an anonymous caller where one is allowed gets the 64 KiB limit, refused from the header', async () => {
    for (const path of ['/register', '/mcp/search_capabilities', '/mcp/describe', '/mcp']) {
      const answer = await declaredOnly(path, { Accept: 'application/json, text/event-stream' });
      await expectRefusedUnread(answer, 413, 'payload_too_large');
      expect(JSON.parse(answer.body).error.message).toContain(String(ANONYMOUS_BODY_LIMIT_BYTES));
    }
  });

  it('/health stays fast while four unauthenticated 14 MB bodies arrive', async () => {
    // Valid JSON, so the old code (which read it all before checking the key) answered 401 too, late.
    const open = '{"id":"core.org.current.get","params":{"pad":"';
    const body = Buffer.alloc(FOURTEEN_MB, 0x61);
    body.write(open, 0);
    body.write('"}}', FOURTEEN_MB - 3);
    const floods = Array.from({ length: 4 }, () =>
      rawRequest(gateway.url, {
        path: '/mcp/dry_run',
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
        body,
      }),
    );
    const healthTimes: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const started = performance.now();
      const health = await fetch(`${gateway.url}/health`);
      await health.text();
      healthTimes.push(performance.now() - started);
    }
    const answers = await Promise.all(floods);
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.ms).toBeLessThan(1000);
    }
    expect(Math.max(...healthTimes)).toBeLessThan(200);
  });
});

describe('an authenticated caller keeps the full limits', () => {
  const padded = (size: number) => ({ query: 'organization', padding: 'x'.repeat(size) });

  it('search_capabilities: 200 KiB is read with a key (400: unknown member), 413 without', async () => {
    const withKey = await gateway.client.post('/mcp/search_capabilities', padded(200 * 1024), {
      key,
      idem: null,
    });
    expect(withKey.status).toBe(400);
    expectEnvelope(withKey.json, 'validation_failed');
    const anonymous = await gateway.client.post('/mcp/search_capabilities', padded(200 * 1024), {
      idem: null,
    });
    expect(anonymous.status).toBe(413);
  });

  it('dry_run of a 2 MB upload is read and checked with a key', async () => {
    const content = Buffer.alloc(2 * 1024 * 1024, 0x41).toString('base64');
    const answer = await gateway.client.post(
      '/mcp/dry_run',
      {
        id: 'documents.document.upload',
        params: { file_name: 'big.txt', mime_type: 'text/plain', content_base64: content },
      },
      { key, idem: null },
    );
    expect(answer.status).toBe(200);
    expect(answer.json.capability_id).toBe('documents.document.upload');
  });

  it('the MCP endpoint reads a 200 KiB body with a key', async () => {
    const response = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${key}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_capabilities', arguments: padded(200 * 1024) },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"isError":true');
  });
});
