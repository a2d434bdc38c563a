// Analytics as a site owner and an agent see it: a generated week of traffic is sent to POST /a/events
// the way pages and servers send it, and analytics.stats.read must agree with counts this test computes
// on its own — visitors, visits, bounces, durations, pages, referrers, events, errors and a daily series
// in the property's zone. Bots and foreign domains are dropped, the client address is stored nowhere,
// and another organization sees none of it.

import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { GatewayError } from '@agw/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { waitUntil } from './helpers/mail-sink.js';

const gateway = useGateway({ env: { ANALYTICS_EVENTS_PER_MINUTE: '100000' } });
let agent: ReturnType<typeof billingClient>;
let other: ReturnType<typeof billingClient>;
let propertyId: string;
let ingestionId: string;

const ZONE = 'Europe/Berlin';
const NOW = Date.now();
const HOUR = 3_600_000;
const REFERRERS = ['https://www.google.com/search?q=x', 'https://news.ycombinator.com/item?id=1', null];
const PAGES = ['/', '/pricing', '/docs/start', '/blog/launch'];

interface Sent {
  visitor: number;
  name: string;
  at: number;
  path?: string;
  referrer?: string | null;
  outcome?: string;
  category?: string;
}

/** A small deterministic generator, so a failure replays. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const userAgent = (visitor: number) =>
  `Mozilla/5.0 (X11; Linux x86_64; rv:${100 + visitor}.0) Gecko/20100101 Firefox/${100 + visitor}.0`;

/** 30 visitors, 1–3 visits each over the past week, 1–4 page views per visit, signups and failures. */
function generateWeek(): Sent[] {
  const next = random(7);
  const sent: Sent[] = [];
  for (let visitor = 0; visitor < 30; visitor += 1) {
    const visits = 1 + Math.floor(next() * 3);
    for (let visit = 0; visit < visits; visit += 1) {
      // Visits of one visitor are a day apart at least: never within 30 minutes of each other.
      let at = NOW - (visit + 1) * 40 * HOUR - Math.floor(next() * 12) * HOUR;
      const views = 1 + Math.floor(next() * 4);
      for (let view = 0; view < views; view += 1) {
        sent.push({
          visitor,
          name: 'pageview',
          at,
          path: PAGES[Math.floor(next() * PAGES.length)] as string,
          referrer:
            view === 0 ? (REFERRERS[Math.floor(next() * REFERRERS.length)] ?? null) : 'https://shop.example/',
        });
        at += (1 + Math.floor(next() * 9)) * 60_000;
      }
      if (next() < 0.3) sent.push({ visitor, name: 'signup', at, path: '/pricing', outcome: 'success' });
      if (next() < 0.2) {
        sent.push({
          visitor,
          name: 'checkout_failed',
          at: at + 1000,
          path: '/pricing',
          outcome: 'error',
          category: 'payment',
        });
      }
    }
  }
  return sent;
}

interface IngestionAnswer {
  readonly accepted?: number;
  readonly dropped?: { bot: number; domain: number };
  readonly error?: { code: string; details: { schema_pointer: string }[] };
}

// The site's visitors connect from an address of their own (all of 127/8 is loopback), so the check
// below can tell their address from the agent's (whose invokes the audit log records, by design).
const VISITOR_ADDRESS = '127.0.0.77';

function send(body: unknown, headers: Record<string, string> = {}) {
  const payload = JSON.stringify(body);
  return new Promise<{ status: number; headers: Headers; body: IngestionAnswer }>((resolve, reject) => {
    const outgoing = request(
      `${gateway.url}/a/events`,
      {
        method: 'POST',
        localAddress: VISITOR_ADDRESS,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: new Headers(response.headers as Record<string, string>),
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as IngestionAnswer,
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

const sent = generateWeek();

const day = new Intl.DateTimeFormat('en-CA', {
  timeZone: ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** Visitors as the stats count them: distinct people per local day, page events only. */
function visitorDays(events: readonly Sent[]): number {
  return new Set(
    events
      .filter((event) => event.path !== undefined)
      .map((event) => `${event.visitor} ${day.format(event.at)}`),
  ).size;
}

beforeAll(async () => {
  agent = billingClient(gateway, (await approvedInstallation(gateway, '10')).key);
  other = billingClient(gateway, (await approvedInstallation(gateway, '10')).key);
  const created = await agent.run('analytics.property.manage', {
    operation: 'create',
    name: 'Shop',
    domains: ['shop.example'],
    timezone: ZONE,
  });
  propertyId = (created.property as { id: string }).id;
  ingestionId = (created.property as { ingestion_id: string }).ingestion_id;
  for (let visitor = 0; visitor < 30; visitor += 1) {
    const events = sent
      .filter((event) => event.visitor === visitor)
      .map((event) => ({
        name: event.name,
        url: `https://shop.example${event.path ?? '/'}?utm_source=mail&email=someone@example.com`,
        referrer: event.referrer ?? null,
        occurred_at: new Date(event.at).toISOString(),
        ...(event.outcome ? { outcome: event.outcome } : {}),
        ...(event.category ? { category: event.category } : {}),
      }));
    const answer = await send({ ingestion_id: ingestionId, events }, { 'user-agent': userAgent(visitor) });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ accepted: events.length, dropped: { bot: 0, domain: 0 } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  }
  // A 202 means accepted: the writer commits in batches right after it.
  await waitUntil(async () => ((await storedEvents()) === sent.length ? true : undefined));
}, 60_000);

async function storedEvents(): Promise<number> {
  const [row] = await gateway.knex('analytics_events').where({ property_id: propertyId }).count({ n: '*' });
  return Number(row?.n);
}

describe('a week of traffic', () => {
  it('stats agree with counts computed from what was sent', async () => {
    const stats = await agent.run('analytics.stats.read', { granularity: 'day', limit_events: 10 });
    // A visitor is a person on one day of the property (ids are scoped to its local day); a visit their
    // events of that day less than 30 minutes apart.
    const visits: Sent[][] = [];
    for (let visitor = 0; visitor < 30; visitor += 1) {
      const own = sent.filter((event) => event.visitor === visitor).sort((a, b) => a.at - b.at);
      let current: Sent[] = [];
      for (const event of own) {
        const last = current.at(-1);
        if (
          last !== undefined &&
          (event.at - last.at > 30 * 60_000 || day.format(event.at) !== day.format(last.at))
        ) {
          visits.push(current);
          current = [];
        }
        current.push(event);
      }
      visits.push(current);
    }
    const durations = visits.map((visit) => ((visit.at(-1) as Sent).at - (visit[0] as Sent).at) / 1000);
    expect(stats.totals).toEqual({
      visitors: visitorDays(sent),
      visits: visits.length,
      pageviews: sent.filter((event) => event.name === 'pageview').length,
      events: sent.length,
      errors: sent.filter((event) => event.outcome === 'error').length,
      bounce_rate:
        Math.round((visits.filter((visit) => visit.length === 1).length / visits.length) * 10_000) / 10_000,
      visit_duration_seconds: Math.round(durations.reduce((sum, value) => sum + value, 0) / durations.length),
    });

    const count = <K extends string>(keys: K[]) =>
      [...keys.reduce((map, key) => map.set(key, (map.get(key) ?? 0) + 1), new Map<K, number>())].sort(
        (a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1),
      );
    const pages = count(
      sent.filter((event) => event.name === 'pageview').map((event) => event.path as string),
    );
    expect(stats.top_pages.map((row) => [row.path, row.pageviews])).toEqual(pages.slice(0, 10));
    // A referrer on the property's own domain is internal navigation: such a visit counts as direct (it
    // happens when a visit is cut at the property's midnight, which depends on when the test runs).
    const referringHost = (referrer: string | null | undefined) => {
      const host = referrer ? new URL(referrer).hostname : undefined;
      return host === undefined || host === 'shop.example' ? '(direct)' : host;
    };
    const entries = count(visits.map((visit) => referringHost(visit[0]?.referrer)));
    expect(stats.top_referrers.map((row) => [row.referrer, row.visits])).toEqual(entries);
    expect(stats.events_by_name.map((row) => [row.name, row.events])).toEqual(
      count(sent.map((event) => event.name)),
    );
    expect(stats.errors).toEqual([
      expect.objectContaining({ name: 'checkout_failed', category: 'payment', count: stats.totals.errors }),
    ]);

    // One bucket per local day of the window, empty days included, counted in Europe/Berlin.
    const perDay = count(sent.map((event) => day.format(event.at)));
    expect(stats.series.length).toBeGreaterThanOrEqual(7);
    for (const bucket of stats.series) {
      const local = String(bucket.local_start).slice(0, 10);
      expect(bucket.events, local).toBe(perDay.find(([key]) => key === local)?.[1] ?? 0);
    }
    expect(stats.series.reduce((sum, bucket) => sum + Number(bucket.events), 0)).toBe(sent.length);
    expect(stats.sample).toMatchObject({ count: Math.min(sent.length, 100), limit: 100 });
  });

  it('events.read filters errors and text, newest first, and says when it truncated', async () => {
    const errors = await agent.run('analytics.events.read', { errors_only: true, limit: 500 });
    expect(errors.events.length).toBe(sent.filter((event) => event.outcome === 'error').length);
    expect(errors.events.every((event) => event.outcome === 'error' && event.category === 'payment')).toBe(
      true,
    );
    const times = errors.events.map((event) => String(event.occurred_at));
    expect([...times].sort().reverse()).toEqual(times);
    const few = await agent.run('analytics.events.read', { query: 'docs/st', limit: 1 });
    expect(few).toMatchObject({ count: 1, truncated: true });
    expect(few.events[0]).toMatchObject({ path: '/docs/start', host: 'shop.example' });
  });

  it('stores no client address and no query string', async () => {
    const rows = await gateway.knex('analytics_events').where({ property_id: propertyId });
    const text = JSON.stringify(rows);
    expect(rows.length).toBe(sent.length);
    expect(text).not.toContain(VISITOR_ADDRESS);
    expect(text).not.toContain('someone@example.com');
    expect(text).not.toContain('utm_source');
    const visitorIds = new Set(rows.map((row) => row.visitor_id));
    expect(visitorIds.size).toBe(visitorDays(sent));
  });

  it("leaves the visitors' address and user agent in no table of the database", async () => {
    const tables = (
      await gateway
        .knex('information_schema.tables')
        .where({ table_schema: 'public', table_type: 'BASE TABLE' })
        .select('table_name')
    ).map((row: { table_name: string }) => row.table_name);
    expect(tables).toContain('analytics_events');
    for (const table of tables) {
      const text = JSON.stringify(await gateway.knex(table).select());
      expect(text, table).not.toContain(VISITOR_ADDRESS);
      expect(text, table).not.toContain('Firefox/');
    }
  });
});

describe('what ingestion refuses or drops', () => {
  it('drops bots and pages of other domains, refuses bad bodies and unknown ids', async () => {
    const bot = await send(
      { ingestion_id: ingestionId, name: 'pageview', url: 'https://shop.example/' },
      { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' },
    );
    expect(bot).toMatchObject({ status: 202, body: { accepted: 0, dropped: { bot: 1, domain: 0 } } });
    const foreign = await send(
      { ingestion_id: ingestionId, name: 'pageview', url: 'https://evil.example/' },
      { 'user-agent': userAgent(1) },
    );
    expect(foreign.body).toEqual({ accepted: 0, dropped: { bot: 0, domain: 1 } });
    const unnamed = await send({ ingestion_id: ingestionId, url: 'https://shop.example/' });
    expect(unnamed).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });
    expect(unnamed.body.error?.details[0]?.schema_pointer).toBe('/name');
    const tooMany = await send({
      ingestion_id: ingestionId,
      events: Array.from({ length: 101 }, () => ({ name: 'x' })),
    });
    expect(tooMany.status).toBe(400);
    const unknown = await send({ ingestion_id: 'ap_nope', name: 'x' });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const preflight = await fetch(`${gateway.url}/a/events`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    // What only a preflight is read for is not repeated on every page view's answer.
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
    expect(unknown.headers.get('access-control-allow-methods')).toBeNull();
  });
});

describe('tenancy', () => {
  it('another organization cannot read the property and its own stats stay empty', async () => {
    const refused = await other
      .run('analytics.stats.read', { property_id: propertyId })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).code).toBe('not_found');
    // Like a property that does not exist at all: same code and status, the same message but for the id.
    const missingId = randomUUID();
    const missing = (await other
      .run('analytics.events.read', { property_id: missingId })
      .catch((error: unknown) => error)) as GatewayError;
    const foreign = (await other
      .run('analytics.events.read', { property_id: propertyId })
      .catch((error: unknown) => error)) as GatewayError;
    expect([foreign.code, foreign.status]).toEqual([missing.code, missing.status]);
    expect(foreign.message.replace(propertyId, 'ID')).toBe(missing.message.replace(missingId, 'ID'));
    // Its public id is no way in either: events sent with it land in the first organization only.
    const update = await other
      .run('analytics.property.manage', { operation: 'update', property_id: propertyId, name: 'Mine' })
      .catch((error: unknown) => error);
    expect((update as GatewayError).code).toBe('not_found');
    await other.run('analytics.property.manage', {
      operation: 'create',
      name: 'Other',
      domains: ['other.example'],
    });
    const own = await other.run('analytics.stats.read', {});
    expect(own.totals).toMatchObject({ events: 0, visitors: 0 });
    expect((await other.run('analytics.events.read', {})).events).toEqual([]);
  });
});
