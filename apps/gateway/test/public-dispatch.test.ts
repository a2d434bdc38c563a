// Which requests the public routes' dispatch answers itself (before Koa) and which it hands on: an exact
// method and path (with `:name` segments) is served there, everything else reaches the fallback (the
// Koa app), which answers the variants as it always did. domain-services.test.ts checks that both
// answer alike.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PublicRoute } from '@agw/capabilities';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servePublicRoutesFirst } from '../src/domains/public-dispatch.js';
import { createLogger } from '../src/logger.js';

const routes: PublicRoute[] = [
  { method: 'POST', path: '/a/events', handle: async (request) => ({ status: 202, body: request.params }) },
  {
    method: 'GET',
    path: '/book/:slug',
    handle: async (request) => ({ status: 200, body: { slug: request.params.slug } }),
  },
  // Router syntax beyond `:name` is left to Koa's router.
  { method: 'GET', path: '/files/*rest', handle: async () => ({ status: 200 }) },
];

let server: Server;
let url: string;
const fallbackSaw: string[] = [];

beforeAll(async () => {
  const listener = servePublicRoutesFirst(
    routes.map((route) => ({ domain: 'demo', route })),
    (request, response) => {
      fallbackSaw.push(`${request.method} ${request.url}`);
      response.writeHead(299).end();
    },
    // No request here fails, so nothing is audited.
    { logger: createLogger({ level: 'silent' }), knex: undefined as unknown as Knex },
  );
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the public routes dispatch', () => {
  it('answers an exact method and path itself, parameters included', async () => {
    const posted = await fetch(`${url}/a/events?x=1`, { method: 'POST', body: '{}' });
    expect(posted.status).toBe(202);
    expect(posted.headers.get('x-content-type-options')).toBe('nosniff');
    const page = await fetch(`${url}/book/intro-call`);
    expect(await page.json()).toEqual({ slug: 'intro-call' });
    expect(fallbackSaw).toEqual([]);
  });

  it('hands every other request to the fallback', async () => {
    const others: Array<[string, string]> = [
      ['GET', '/a/events'],
      ['POST', '/a/events/'],
      ['POST', '/A/events'],
      ['HEAD', '/book/intro-call'],
      ['GET', '/book/intro%2Dcall'],
      ['GET', '/book/intro-call/more'],
      ['GET', '/files/a/b'],
      ['GET', '/files/*rest'],
      ['GET', '/health'],
    ];
    for (const [method, path] of others) {
      const response = await fetch(`${url}${path}`, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect(response.status, `${method} ${path}`).toBe(299);
    }
    expect(fallbackSaw).toEqual(others.map(([method, path]) => `${method} ${path}`));
  });
});
