// A domain's services in a real gateway: its public routes answer without a key behind the gateway's
// middleware (body limit, UTF-8, error envelope, a route's own headers, /openapi.json), asTenant runs
// as the runtime role with the tenant set, mail staged there or by a handler through ctx.mail reaches
// the mailbox with its attachments only when the transaction commits, rate limits count per key, and
// a timed task runs and runs once more at shutdown.

import { connect } from 'node:net';
import type { CapabilityDomain, PublicRoute } from '@agw/capabilities';
import { describe, expect, it } from 'vitest';
import { browserUnavailable, launchBrowser } from './helpers/browser.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { captureLog } from './helpers/log-capture.js';
import { attachmentsOf, readDevMailbox, waitUntil } from './helpers/mail-sink.js';

const ICS = Buffer.from('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n');
let taskRuns = 0;
let stopped = false;

const routes = (host: Parameters<NonNullable<CapabilityDomain['start']>>[0]): PublicRoute[] => [
  {
    method: 'GET',
    path: '/demo/page/:slug',
    openapi: { summary: 'A demo page', responses: { '200': { description: 'The page' } } },
    handle: async (request) => ({
      status: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': "default-src 'self'",
      },
      body: `<!doctype html><title>${request.params.slug}</title><p>${request.query.get('tz') ?? ''}</p>`,
    }),
  },
  {
    // Like a secret booking link: the path itself is the credential.
    method: 'GET',
    path: '/demo/secret/:slug/:secret',
    handle: async (request) =>
      request.params.secret === 's3cr3t-valid' ? { status: 200, body: { ok: true } } : { status: 404 },
  },
  {
    method: 'POST',
    path: '/demo/echo',
    bodyLimitBytes: 32,
    handle: async (request) => ({
      status: 202,
      body: { received: new TextDecoder().decode(request.body), from: request.clientAddress },
    }),
  },
  {
    method: 'POST',
    path: '/demo/fail',
    handle: async () => {
      throw new Error('secret internals: select * from mail_outbox');
    },
  },
  {
    method: 'POST',
    path: '/demo/tenant/:org',
    handle: async (request) => {
      const organizationId = request.params.org as string;
      const outcome = await host.asTenant(organizationId, async (sql, mail) => {
        const { rows } = await sql.query<{ role: string; org: string }>(
          "select current_user as role, current_setting('agw.organization_id') as org",
        );
        await mail.stage({
          to: 'booker@example.com',
          subject: `Booked ${request.query.get('tag')}`,
          text: 'See you then.',
          attachments: [{ filename: 'invite.ics', contentType: 'text/calendar', content: ICS }],
        });
        if (request.query.get('fail') === '1') throw new Error('rolled back');
        return rows[0];
      });
      return { status: 200, body: outcome };
    },
  },
  {
    method: 'GET',
    path: '/demo/limited',
    handle: async (request) => {
      const verdict = await host.rateLimit(`demo.limited:${request.clientAddress}`, 2, 60);
      return verdict.allowed
        ? { status: 200, body: { ok: true } }
        : { status: 429, headers: { 'retry-after': String(verdict.retryAfterSeconds) }, body: { ok: false } };
    },
  },
];

const demoDomain: CapabilityDomain = {
  name: 'demo',
  handlers: [],
  migrations: [],
  start: (host) => ({
    routes: routes(host),
    tasks: [
      {
        name: 'count',
        intervalMs: 50,
        run: async () => {
          taskRuns += 1;
        },
      },
    ],
    stop: async () => {
      stopped = true;
    },
  }),
};

const mailer = demoCapability<{ fail: boolean; tag: string }, { staged: string }>(
  {
    id: 'demo.mail.send',
    mutating: true,
    input_schema: {
      type: 'object',
      properties: { fail: { type: 'boolean' }, tag: { type: 'string' } },
      required: ['fail', 'tag'],
      additionalProperties: false,
    },
  },
  async (input, ctx) => {
    const staged = await ctx.mail.stage({
      to: 'customer@example.com',
      subject: `Invoice ${input.tag}`,
      text: 'Attached.',
      attachments: [
        { filename: 'invoice.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.7') },
      ],
    });
    if (input.fail) throw new Error('the handler failed after staging');
    return { staged };
  },
);

const log = captureLog();
const gateway = useGateway({ domains: [demoDomain], logger: log.logger, ...withCapabilities(mailer) });

/** Status, headers (without the per-request ones) and body of an answer, for comparing two of them. */
async function shape(response: Response) {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!['date', 'x-request-id', 'keep-alive', 'connection'].includes(name)) headers[name] = value;
  });
  const body = (await response.text()).replace(/"audit_id":"[^"]+"/, '"audit_id":"…"');
  return { status: response.status, headers, body };
}

const mailWithSubject = async (subject: string) =>
  (await readDevMailbox(gateway.dataDir)).find((mail) => mail.subject === subject);

/**
 * Sends `request` on a new connection (then half-closes it when `close`: Node's server then ends the
 * connection at once) and gives back all that comes back until the server closes it.
 */
async function exchange(request: string, close: boolean): Promise<string> {
  const { hostname, port } = new URL(gateway.url);
  const socket = connect(Number(port), hostname);
  let answer = '';
  socket.on('data', (data) => {
    answer += String(data);
  });
  if (close) socket.end(request);
  else socket.write(request);
  await new Promise((resolve) => socket.once('close', resolve));
  return answer;
}

describe('domain public routes', () => {
  it('answer without a key, with the route’s own headers, and are listed in /openapi.json', async () => {
    const page = await fetch(`${gateway.url}/demo/page/intro?tz=Europe%2FBerlin`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe("default-src 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toContain('<title>intro</title><p>Europe/Berlin</p>');
    const openapi = await (await fetch(`${gateway.url}/openapi.json`)).json();
    expect(openapi.paths['/demo/page/{slug}'].get).toMatchObject({ summary: 'A demo page', tags: ['demo'] });
  });

  it('read the body up to the route’s limit and refuse more, or bytes that are not UTF-8', async () => {
    const ok = await fetch(`${gateway.url}/demo/echo`, { method: 'POST', body: 'hello' });
    expect(ok.status).toBe(202);
    expect(await ok.json()).toEqual({ received: 'hello', from: '127.0.0.1' });
    const large = await fetch(`${gateway.url}/demo/echo`, { method: 'POST', body: 'x'.repeat(33) });
    expect(large.status).toBe(413);
    expectEnvelope(await large.json(), 'payload_too_large');
    const bad = await fetch(`${gateway.url}/demo/echo`, { method: 'POST', body: Buffer.from([0x61, 0xff]) });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain('not valid UTF-8 (byte offset 1)');
  });

  it('refuse a streamed body at the limit, and answer the next request after one that broke off', async () => {
    // Raw sockets: fetch's streamed upload can stall when the server answers before the body is sent.
    const chunked = await exchange(
      'POST /demo/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' +
        `14\r\n${'x'.repeat(20)}\r\n14\r\n${'x'.repeat(20)}\r\n0\r\n\r\n`,
      false,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 413 /);
    expect(chunked).toContain('"payload_too_large"');
    // A body shorter than its Content-Length, then the connection closed: nothing waits for the rest.
    await exchange('POST /demo/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhell', true);
    const ok = await fetch(`${gateway.url}/demo/echo`, { method: 'POST', body: 'hello' });
    expect(ok.status).toBe(202);
  });

  it('turn a thrown error into a 500 envelope that says nothing of it', async () => {
    const failed = await fetch(`${gateway.url}/demo/fail`, { method: 'POST', body: '{}' });
    expect(failed.status).toBe(500);
    const text = await failed.text();
    expectEnvelope(JSON.parse(text), 'internal_error');
    expect(text).not.toContain('mail_outbox');
  });

  // An exact match is answered before Koa (src/domains/public-dispatch.ts); a trailing slash is the same
  // route for the router, so it shows what the Koa stack answers.
  it('answer a path with a trailing slash as the path itself: headers, bodies, limits and error envelopes', async () => {
    const pairs: Array<[string, RequestInit]> = [
      ['/demo/page/intro?tz=UTC', {}],
      ['/demo/echo', { method: 'POST', body: 'hello' }],
      ['/demo/echo', { method: 'POST', body: 'x'.repeat(33) }],
      ['/demo/echo', { method: 'POST', body: Buffer.from([0x61, 0xff]) }],
      ['/demo/fail', { method: 'POST', body: '{}' }],
    ];
    for (const [path, init] of pairs) {
      const [url, query = ''] = path.split('?');
      const direct = await shape(await fetch(`${gateway.url}${path}`, init));
      const throughKoa = await shape(await fetch(`${gateway.url}${url}/${query ? `?${query}` : ''}`, init));
      expect(direct, `${init.method ?? 'GET'} ${path}`).toEqual(throughKoa);
    }
  });

  it('echo the request id, log one line per request and audit a failure', async () => {
    const ok = await fetch(`${gateway.url}/demo/page/logged`, { headers: { 'X-Request-Id': 'public-1' } });
    expect(ok.headers.get('x-request-id')).toBe('public-1');
    const invented = await fetch(`${gateway.url}/demo/page/logged`, {
      headers: { 'X-Request-Id': 'bad id!' },
    });
    expect(invented.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const failed = await fetch(`${gateway.url}/demo/fail`, {
      method: 'POST',
      body: '{}',
      headers: { 'X-Request-Id': 'public-2' },
    });
    const { error } = await failed.json();
    const lines = log.entries().filter((entry) => entry.msg === 'request');
    expect(lines.find((entry) => entry.request_id === 'public-1')).toMatchObject({
      method: 'GET',
      route: '/demo/page/:slug',
      path: '/demo/page/logged',
      status: 200,
    });
    expect(lines.find((entry) => entry.request_id === 'public-2')).toMatchObject({
      status: 500,
      error_code: 'internal_error',
    });
    const failure = log
      .entries()
      .find((entry) => entry.msg === 'request failed' && entry.request_id === 'public-2');
    expect(JSON.stringify(failure)).toContain('select * from mail_outbox');
    const rows = await gateway.knex('audit_events').where({ audit_id: error.audit_id });
    expect(rows).toMatchObject([{ request_id: 'public-2', http_status: 500, outcome: 'failed' }]);
  });

  it("never write a route's secret parameter to the log or an audit row", async () => {
    const get = (path: string, id: string) =>
      fetch(`${gateway.url}${path}`, { headers: { 'X-Request-Id': id } });
    expect((await get('/demo/secret/intro/s3cr3t-valid', 'secret-1')).status).toBe(200);
    // A trailing slash is answered through Koa: the same redaction there.
    expect((await get('/demo/secret/intro/s3cr3t-valid/', 'secret-2')).status).toBe(200);
    const refused = await get('/demo/secret/intro/s3cr3t-guess', 'secret-3');
    expect(refused.status).toBe(404);
    const { error } = await refused.json();
    expect(log.text()).not.toContain('s3cr3t');
    const lines = log.entries().filter((entry) => String(entry.request_id).startsWith('secret-'));
    expect(lines.map((entry) => entry.path)).toEqual([
      '/demo/secret/intro/[secret]',
      '/demo/secret/intro/[secret]/',
      '/demo/secret/intro/[secret]',
    ]);
    const [row] = await gateway.knex('audit_events').where({ audit_id: error.audit_id });
    expect(JSON.stringify(row)).not.toContain('s3cr3t');
    expect(JSON.stringify(row)).toContain('/demo/secret/intro/[secret]');
  });

  it('count rate limits per key', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await fetch(`${gateway.url}/demo/limited`)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe.skipIf(browserUnavailable)(`a public page in a real browser ${browserUnavailable ?? ''}`, () => {
  it('renders with its own Content-Security-Policy', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const response = await page.goto(`${gateway.url}/demo/page/hello?tz=Asia%2FKolkata`);
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe('hello');
      expect(await page.textContent('p')).toBe('Asia/Kolkata');
    } finally {
      await browser.close();
    }
  });
});

describe('mail staged by a domain', () => {
  it('asTenant runs as the runtime role for that organization and sends its mail after commit', async () => {
    const { organizationId } = await approvedInstallation(gateway);
    const answer = await fetch(`${gateway.url}/demo/tenant/${organizationId}?tag=one`, { method: 'POST' });
    expect(await answer.json()).toEqual({ role: 'agw_runtime', org: organizationId });
    const mail = await waitUntil(() => mailWithSubject('Booked one'));
    expect(mail.to).toBe('booker@example.com');
    const [invite] = attachmentsOf(mail);
    expect(invite).toMatchObject({ filename: 'invite.ics', contentType: 'text/calendar' });
    expect(invite?.content.equals(ICS)).toBe(true);
  });

  it('a rolled-back transaction sends nothing', async () => {
    const { organizationId } = await approvedInstallation(gateway);
    const answer = await fetch(`${gateway.url}/demo/tenant/${organizationId}?tag=two&fail=1`, {
      method: 'POST',
    });
    expect(answer.status).toBe(500);
    const rows = await gateway.knex('mail_outbox').where({ subject: 'Booked two' });
    expect(rows).toEqual([]);
  });

  it('a handler’s ctx.mail reaches the mailbox with its attachment, and not when the handler failed', async () => {
    const { key } = await approvedInstallation(gateway, '5');
    const invoke = (tag: string, fail: boolean) =>
      gateway.client.post(
        '/mcp/invoke',
        { id: 'demo.mail.send', params: { tag, fail }, idempotency_key: `mail-${tag}-${Date.now()}` },
        { key, idem: null },
      );
    const sent = await invoke('A-1', false);
    expect(sent.status).toBe(200);
    const mail = await waitUntil(() => mailWithSubject('Invoice A-1'));
    expect(attachmentsOf(mail).map((file) => [file.filename, file.content.toString()])).toEqual([
      ['invoice.pdf', '%PDF-1.7'],
    ]);
    // The outbox marks the row sent just after the mailbox has the message.
    const row = await waitUntil(async () => {
      const found = await gateway.knex('mail_outbox').where({ subject: 'Invoice A-1' }).first();
      return found?.status === 'sent' ? found : undefined;
    });
    expect(row).toMatchObject({ status: 'sent', body_ciphertext: null, attachments_ciphertext: null });

    const failed = await invoke('A-2', true);
    expect(failed.status).toBe(500);
    expect(await gateway.knex('mail_outbox').where({ subject: 'Invoice A-2' })).toEqual([]);
  });
});

describe('domain tasks', () => {
  it('run on their interval, and stop() runs at shutdown', async () => {
    await waitUntil(() => (taskRuns >= 2 ? true : undefined));
    await gateway.gateway.close();
    expect(stopped).toBe(true);
  });
});
