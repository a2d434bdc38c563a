// The public routes' dispatch is the only place they are served (issue 27, finding 2: they were also
// mounted on Koa, every rule written twice). It matches paths as the gateway's router matches its own,
// answers HEAD, 405 and OPTIONS itself, and hands every request that is no public route's to the
// fallback (the Koa app).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PublicRoute } from '@agw/capabilities';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servePublicRoutesFirst } from '../src/domains/public-dispatch.js';
import { createLogger } from '../src/logger.js';

const routes: PublicRoute[] = [
  { method: 'POST', path: '/a/events', handle: async (request) => ({ status: 202, body: request.params }) },
  { method: 'OPTIONS', path: '/a/events', handle: async () => ({ status: 204 }) },
  // Before `/book/:slug/:secret`: the first route that matches answers.
  { method: 'GET', path: '/book/:slug/slots', handle: async () => ({ status: 200, body: { slots: [] } }) },
  {
    method: 'GET',
    path: '/book/:slug',
    handle: async (request) => ({ status: 200, body: { slug: request.params.slug } }),
  },
  {
    method: 'GET',
    path: '/book/:slug/:secret',
    handle: async (request) => ({ status: 200, body: request.params }),
  },
];

let server: Server;
let url: string;
const fallbackSaw: string[] = [];
const audited: unknown[] = [];

beforeAll(async () => {
  // A failure's audit row goes to this stand-in of a knex transaction's insert.
  const knex = Object.assign(() => ({ insert: async (row: unknown) => audited.push(row) }), {
    isTransaction: true,
  }) as unknown as Knex;
  const listener = servePublicRoutesFirst(
    routes.map((route) => ({ domain: 'demo', route })),
    (request, response) => {
      fallbackSaw.push(`${request.method} ${request.url}`);
      response.writeHead(299).end();
    },
    { logger: createLogger({ level: 'silent' }), knex },
  );
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the public routes dispatch', () => {
  it('answers a route, its other case and trailing slash, parameters decoded as the router decodes them', async () => {
    const posted = await fetch(`${url}/a/events?x=1`, { method: 'POST', body: '{}' });
    expect(posted.status).toBe(202);
    expect(posted.headers.get('x-content-type-options')).toBe('nosniff');
    for (const path of ['/A/Events', '/a/events/']) {
      expect((await fetch(`${url}${path}`, { method: 'POST', body: '{}' })).status, path).toBe(202);
    }
    expect(await (await fetch(`${url}/book/intro%2Dcall`)).json()).toEqual({ slug: 'intro-call' });
    expect(await (await fetch(`${url}/Book/intro-call/`)).json()).toEqual({ slug: 'intro-call' });
    // A bad escape stays as sent (@koa/router's safe decoding).
    expect(await (await fetch(`${url}/book/a%E0%A4%A`)).json()).toEqual({ slug: 'a%E0%A4%A' });
    // `slots` is declared before `:secret`: it wins.
    expect(await (await fetch(`${url}/book/intro/slots`)).json()).toEqual({ slots: [] });
    expect(await (await fetch(`${url}/book/intro/s3cret`)).json()).toEqual({
      slug: 'intro',
      secret: 's3cret',
    });
    expect(fallbackSaw).toEqual([]);
  });

  it('answers HEAD as GET without a body', async () => {
    const head = await fetch(`${url}/book/intro-call`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(head.headers.get('content-length')).toBe(String('{"slug":"intro-call"}'.length));
    expect(await head.text()).toBe('');
  });

  it('answers another method of a known path 405 with Allow in the envelope, and OPTIONS with Allow', async () => {
    const wrong = await fetch(`${url}/book/intro-call`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('HEAD, GET');
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    const get = await fetch(`${url}/a/events`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    const options = await fetch(`${url}/book/intro-call`, { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('HEAD, GET');
    expect(audited).toHaveLength(2);
  });

  it('hands every request that is no public route to the fallback', async () => {
    const others: Array<[string, string]> = [
      ['POST', '/a/events//'],
      ['POST', '/a/%65vents'],
      ['GET', '/book'],
      ['GET', '/book//'],
      ['GET', '/book/intro-call/more/than'],
      ['GET', '/health'],
    ];
    for (const [method, path] of others) {
      const response = await fetch(`${url}${path}`, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect(response.status, `${method} ${path}`).toBe(299);
    }
    expect(fallbackSaw).toEqual(others.map(([method, path]) => `${method} ${path}`));
  });
});
