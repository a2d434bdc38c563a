// createEgressFetch against a real HTTP server on 127.0.0.1 (loopback only): every hop is checked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressFetch, GuardConfigError, GuardDenied } from '../src/index.js';

let server: Server;
let port = 0;
const hits: Array<{ path: string; authorization: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push({ path: request.url ?? '', authorization: request.headers.authorization });
    const redirects: Record<string, string> = {
      '/to-ok': '/ok',
      '/to-foreign': 'http://foreign.example.org/steal',
      '/to-localhost': `http://localhost:${port}/ok`,
      '/loop': '/loop',
    };
    const location = redirects[request.url ?? ''];
    if (location) {
      response.writeHead(302, { location });
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const options = { protocols: ['http:'] };

describe('createEgressFetch', () => {
  it('reaches an allow-listed host and follows a redirect that stays on it', async () => {
    const egressFetch = createEgressFetch(['127.0.0.1'], fetch, options);
    const response = await egressFetch(`http://127.0.0.1:${port}/to-ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
  });

  it('refuses a redirect to a foreign host before requesting it', async () => {
    const denied: string[] = [];
    const egressFetch = createEgressFetch(['127.0.0.1'], fetch, {
      ...options,
      onDenied: (url) => denied.push(url.hostname),
    });
    hits.length = 0;
    const attempt = egressFetch(`http://127.0.0.1:${port}/to-localhost`);
    await expect(attempt).rejects.toBeInstanceOf(GuardDenied);
    await expect(attempt).rejects.toMatchObject({ code: 'egress_denied' });
    await expect(egressFetch(`http://127.0.0.1:${port}/to-foreign`)).rejects.toMatchObject({
      code: 'egress_denied',
    });
    // The server saw the redirecting requests only, never the refused target.
    expect(hits.map((hit) => hit.path)).toEqual(['/to-localhost', '/to-foreign']);
    expect(denied).toEqual(['localhost', 'foreign.example.org']);
  });

  it('refuses a first request to a host or protocol that is not allowed', async () => {
    hits.length = 0;
    const egressFetch = createEgressFetch(['127.0.0.1'], fetch);
    await expect(egressFetch(`http://127.0.0.1:${port}/ok`)).rejects.toMatchObject({ code: 'egress_denied' });
    await expect(
      createEgressFetch(['127.0.0.1'], fetch, options)(`http://localhost:${port}/ok`),
    ).rejects.toMatchObject({
      code: 'egress_denied',
    });
    expect(hits).toHaveLength(0);
  });

  it('drops credentials when a redirect changes origin', async () => {
    hits.length = 0;
    const egressFetch = createEgressFetch(['127.0.0.1', 'localhost'], fetch, options);
    const response = await egressFetch(`http://127.0.0.1:${port}/to-localhost`, {
      headers: { authorization: 'Bearer upstream-secret' },
    });
    expect(response.status).toBe(200);
    expect(hits).toEqual([
      { path: '/to-localhost', authorization: 'Bearer upstream-secret' },
      { path: '/ok', authorization: undefined },
    ]);
  });

  it('stops a redirect loop', async () => {
    const egressFetch = createEgressFetch(['127.0.0.1'], fetch, { ...options, maxRedirects: 3 });
    await expect(egressFetch(`http://127.0.0.1:${port}/loop`)).rejects.toThrow('Too many redirects');
  });

  it('validates its options at construction', () => {
    expect(() => createEgressFetch('127.0.0.1' as never, fetch)).toThrow(GuardConfigError);
  });
});
