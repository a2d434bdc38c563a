// Issue 26, finding 4: the secret of a booking link is in its path (/book/<slug>/<secret>), and
// docs/calendar.md promises no working link is ever logged. It was redacted only when the router matched
// a route with a `secret` parameter: OPTIONS, PUT, DELETE and HEAD, an unknown sub-path or /book//<secret>
// logged `"route":null,"path":"/book/…/<secret>"`, and the 404/405 audit row held it too. Now the log
// redacts by the position the calendar's routes declare, whatever the method and whether a route matched.

import { describe, expect, it } from 'vitest';
import { useGateway } from './helpers/gateway.js';
import { captureLog } from './helpers/log-capture.js';

const log = captureLog();
// A failure under a secret path, to see what the failure log line shows of the request.
const gateway = useGateway({
  logger: log.logger,
  extendRouter: (router) => {
    router.get('/book/:slug/:secret/fail', () => {
      throw new Error('injected failure');
    });
  },
});

const SECRET = 'Sup3rS3cretL1nkToken';

/** [method, path, what the log and the audit row may show]. */
const requests: ReadonlyArray<readonly [string, string, string]> = [
  ['OPTIONS', `/book/intro/${SECRET}`, '/book/intro/[secret]'],
  ['PUT', `/book/intro/${SECRET}`, '/book/intro/[secret]'],
  ['DELETE', `/book/intro/${SECRET}`, '/book/intro/[secret]'],
  ['HEAD', `/book/intro/${SECRET}`, '/book/intro/[secret]'],
  ['PATCH', `/book/intro/${SECRET}/slots`, '/book/intro/[secret]/slots'],
  ['GET', `/book/intro/${SECRET}/no-such-page`, '/book/intro/[secret]/no-such-page'],
  ['GET', `/book/intro/${SECRET}/slots/extra/`, '/book/intro/[secret]/slots/extra/'],
  ['GET', `/book//${SECRET}`, '/book//[secret]'],
  ['POST', `/book//${SECRET}/bookings`, '/book//[secret]/bookings'],
  ['GET', `//book/intro/${SECRET}`, '//book/intro/[secret]'],
  // A base URL with a trailing slash: read as sent, `intro` sits where the secret does; collapsed, the secret.
  ['GET', `/book//intro/${SECRET}`, '/book//[secret]/[secret]'],
  ['GET', `/BOOK/intro/${SECRET}`, '/BOOK/intro/[secret]'],
  ['GET', `/book/intro/${SECRET.replace('S', '%53')}`, '/book/intro/[secret]'],
  // A link that does not exist: the page and the JSON API, through the public routes' fast path.
  ['GET', `/book/intro/${SECRET}`, '/book/intro/[secret]'],
  ['GET', `/book/intro/${SECRET}/slots?from=2030-01-01T00:00:00Z`, '/book/intro/[secret]/slots'],
];

describe('a booking link secret in the path', () => {
  it('never reaches a log line or an audit row, whatever the method or route', async () => {
    const answered: number[] = [];
    for (const [index, [method, path]] of requests.entries()) {
      const response = await fetch(`${gateway.url}${path}`, {
        method,
        headers: { 'X-Request-Id': `secret-path-${index}`, 'Content-Type': 'application/json' },
        ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { body: '{}' } : {}),
      });
      await response.arrayBuffer();
      answered.push(response.status);
    }
    // What the requests met: 404s and 405s (the Koa stack) and the booking page's own answers.
    expect(answered.every((status) => status < 500)).toBe(true);
    const lines = log.entries().filter((entry) => String(entry.request_id).startsWith('secret-path-'));
    const paths = new Map(
      lines.filter((entry) => entry.msg === 'request').map((entry) => [entry.request_id, entry.path]),
    );
    expect(requests.map((_, index) => paths.get(`secret-path-${index}`))).toEqual(
      requests.map(([, , logged]) => logged),
    );
    expect(log.text()).not.toContain(SECRET.slice(4));
    expect(log.text()).not.toContain('3cretL1nk');
    const rows = await gateway.knex('audit_events').whereRaw("details::text like '%/book%'");
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain('3cretL1nk');
  });

  it('keeps what is not a secret readable', async () => {
    for (const [index, path] of [
      '/book/intro',
      '/book/intro/slots',
      '/book/intro/bookings',
      '/book/',
    ].entries()) {
      const response = await fetch(`${gateway.url}${path}`, {
        method: 'OPTIONS',
        headers: { 'X-Request-Id': `plain-path-${index}` },
      });
      await response.arrayBuffer();
    }
    const paths = log
      .entries()
      .filter((entry) => entry.msg === 'request' && String(entry.request_id).startsWith('plain-path-'))
      .map((entry) => entry.path);
    expect(paths).toEqual(['/book/intro', '/book/intro/slots', '/book/intro/bookings', '/book/']);
  });

  it('takes the secret out of the path and the Referer of a failure logged with its headers', async () => {
    const response = await fetch(`${gateway.url}/book/intro/${SECRET}/fail`, {
      headers: { 'X-Request-Id': 'secret-failure-1', Referer: `${gateway.url}/book/intro/${SECRET}?tz=UTC` },
    });
    expect(response.status).toBe(500);
    await response.arrayBuffer();
    const failure = log
      .entries()
      .find((entry) => entry.msg === 'request failed' && entry.request_id === 'secret-failure-1');
    expect(failure).toMatchObject({
      request: {
        path: '/book/intro/[secret]/fail',
        headers: { referer: `${gateway.url}/book/intro/[secret]` },
      },
    });
    expect(log.text()).not.toContain('3cretL1nk');
  });
});
