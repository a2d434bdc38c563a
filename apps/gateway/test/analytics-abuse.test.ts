// POST /a/events as an attacker uses it (issue 26, findings 5 to 9): fake events from anywhere, one
// address or one property flooding the others, text the database would drop, nesting that used to
// overflow the stack, and bidi controls in event names. Each answer is checked as a sender sees it and
// the stats as the organization's agent reads them.

import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient, refusal } from './helpers/billing.js';
import { gate } from './helpers/gate.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { captureLog } from './helpers/log-capture.js';
import { waitUntil } from './helpers/mail-sink.js';

const EVENTS_PER_MINUTE = 100;
const log = captureLog();
const gateway = useGateway({
  logger: log.logger,
  env: { ANALYTICS_EVENTS_PER_MINUTE: String(EVENTS_PER_MINUTE) },
});

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { accepted?: number; dropped?: { bot: number; domain: number }; error?: unknown };
}

/** POST /a/events from `address` (any of 127/8: each test sends from addresses of its own). */
function send(address: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${gateway.url}/a/events`,
      {
        method: 'POST',
        localAddress: address,
        headers: { 'content-type': 'application/json', 'user-agent': BROWSER, ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: new Headers(response.headers as Record<string, string>),
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

interface Site {
  readonly agent: ReturnType<typeof billingClient>;
  readonly propertyId: string;
  readonly ingestionId: string;
}

/** An organization of its own with one property on `domain`. */
async function site(domain: string): Promise<Site> {
  const agent = billingClient(gateway, (await approvedInstallation(gateway, '10')).key);
  const created = await agent.run('analytics.property.manage', {
    operation: 'create',
    name: domain,
    domains: [domain],
  });
  const property = created.property as { id: string; ingestion_id: string };
  return { agent, propertyId: property.id, ingestionId: property.ingestion_id };
}

async function stored(propertyId: string): Promise<number> {
  const [row] = await gateway.knex('analytics_events').where({ property_id: propertyId }).count({ n: '*' });
  return Number(row?.n);
}

/** Resolves once `count` events of the property are written (the writer commits after the 202). */
async function written(propertyId: string, count: number): Promise<void> {
  await waitUntil(async () => ((await stored(propertyId)) >= count ? true : undefined));
}

let shop: Site;
let victim: Site;

beforeAll(async () => {
  shop = await site('shop.example');
  victim = await site('victim.example');
}, 60_000);

describe('faked events', () => {
  it("50 events without a url from curl with a foreign Origin do not move another organization's stats", async () => {
    for (let index = 0; index < 50; index += 1) {
      const answer = await send(
        '127.0.0.61',
        { ingestion_id: victim.ingestionId, name: 'pageview', outcome: 'error' },
        { origin: 'https://evil.example', 'user-agent': 'curl/8.5.0' },
      );
      expect(answer).toMatchObject({ status: 202, body: { accepted: 0 } });
    }
    // Each check alone drops them too: a bot's agent, a foreign page (Origin, else Referer), a browser
    // that hides its page.
    const alone: Record<string, string>[] = [
      { 'user-agent': 'curl/8.5.0' },
      { origin: 'https://evil.example' },
      { referer: 'https://evil.example/page' },
      { origin: 'null' },
    ];
    for (const headers of alone) {
      const answer = await send(
        '127.0.0.62',
        { ingestion_id: victim.ingestionId, name: 'pageview', outcome: 'error' },
        headers,
      );
      expect(answer.body, JSON.stringify(headers)).toMatchObject({ accepted: 0 });
    }
    // What the site's own page sends is counted; once it is written, whatever came before it is too.
    const own = await send(
      '127.0.0.63',
      { ingestion_id: victim.ingestionId, name: 'pageview', url: 'https://victim.example/' },
      { origin: 'https://victim.example' },
    );
    expect(own.body).toEqual({ accepted: 1, dropped: { bot: 0, domain: 0 } });
    await written(victim.propertyId, 1);
    const stats = await victim.agent.run('analytics.stats.read', {});
    expect(stats.totals).toMatchObject({ pageviews: 1, events: 1, errors: 0 });
  });
});

describe('the per-address limit', () => {
  it(`counts events, not requests: the ${EVENTS_PER_MINUTE + 1}st event of a minute is refused`, async () => {
    const events = Array.from({ length: EVENTS_PER_MINUTE }, (_, index) => ({ name: `order_${index}` }));
    // The window is the clock's minute: start early enough in one that both requests fall into it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const batch = await send('127.0.0.71', { ingestion_id: shop.ingestionId, events });
    expect(batch).toMatchObject({ status: 202, body: { accepted: EVENTS_PER_MINUTE } });
    const next = await send('127.0.0.71', { ingestion_id: shop.ingestionId, name: 'one_more' });
    expect(next.status).toBe(429);
    const error = expectEnvelope(next.body, 'rate_limited');
    expect(error.retry_after_seconds).toBeGreaterThan(0);
    expect(next.headers.get('retry-after')).toBe(String(error.retry_after_seconds));
    // Another address has its own budget.
    expect((await send('127.0.0.72', { ingestion_id: shop.ingestionId, name: 'one_more' })).status).toBe(202);
  });
});

describe('the backlog', () => {
  it("a flood of one organization's full batches, through three of its properties, holds at most half the backlog and leaves another organization's single events accepted and counted", async () => {
    const flood = await site('flood.example');
    const quiet = await site('quiet.example');
    const floods = [flood.ingestionId];
    const floodIds = [flood.propertyId];
    for (const domain of ['flood-two.example', 'flood-three.example']) {
      const created = await flood.agent.run('analytics.property.manage', {
        operation: 'create',
        name: domain,
        domains: [domain],
      });
      const property = created.property as { id: string; ingestion_id: string };
      floods.push(property.ingestion_id);
      floodIds.push(property.id);
    }
    // Every property is looked up (and cached) before the database is held.
    for (const ingestionId of [...floods, quiet.ingestionId]) {
      expect((await send('127.0.1.1', { ingestion_id: ingestionId, name: 'first' })).status).toBe(202);
    }
    for (const id of floodIds) await written(id, 1);
    await written(quiet.propertyId, 1);
    // The writer cannot write while this transaction holds both properties (on PGlite: its only
    // session), so the backlog only grows: what the flood leaves of it does not depend on timing.
    const held = gate();
    const released = gate();
    const hold = gateway.knex.transaction(async (trx) => {
      await trx.raw('select id from analytics_properties where id in (?, ?, ?, ?) for update', [
        ...floodIds,
        quiet.propertyId,
      ]);
      held.open();
      await released.opened;
    });
    await held.opened;
    const batch = Array.from({ length: 100 }, (_, index) => ({ name: 'flood', properties: { index } }));
    const answers: Answer[] = [];
    const singles: Answer[] = [];
    try {
      // 250 full batches from 250 addresses (each within its per-address budget), in turn to the three
      // properties: 25 000 events, more than the whole backlog holds.
      for (let start = 0; start < 250; start += 25) {
        const wave = Array.from({ length: 25 }, (_, offset) =>
          send(`127.0.2.${start + offset + 1}`, {
            ingestion_id: floods[(start + offset) % floods.length],
            events: batch,
          }),
        );
        answers.push(...(await Promise.all(wave)));
      }
      for (let index = 0; index < 10; index += 1) {
        singles.push(await send('127.0.3.1', { ingestion_id: quiet.ingestionId, name: `signup_${index}` }));
      }
    } finally {
      released.open();
      await hold;
    }
    expect(singles.map((answer) => answer.status)).toEqual(Array(10).fill(202));
    // Half of the 20 000-row backlog, and the rows the writer had taken out to write (two statements of
    // 500) when it found the database held. Shared per property, the three took about 15 000.
    const accepted = answers
      .filter((answer) => answer.status === 202)
      .reduce((sum, answer) => sum + (answer.body as { accepted: number }).accepted, 0);
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(11_000);
    // The flood itself was refused past its share, in the envelope, with a wait.
    const refused = answers.filter((answer) => answer.status !== 202);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((answer) => answer.status === 503)).toBe(true);
    const error = expectEnvelope(refused[0]?.body, 'dependency_unavailable');
    expect(error.retry_after_seconds).toBeGreaterThan(0);
    expect(refused[0]?.headers.get('retry-after')).toBe(String(error.retry_after_seconds));
    await written(quiet.propertyId, 11);
    const stats = await quiet.agent.run('analytics.stats.read', {});
    expect(stats.totals).toMatchObject({ events: 11 });
  }, 120_000);
});

describe('text the database cannot store', () => {
  it('answers 400 naming the field for a lone UTF-16 surrogate anywhere in an event', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'sign\ud800up' }, '/name'],
      [{ name: 'signup', category: '\udc00' }, '/category'],
      [{ name: 'signup', properties: { plan: 'pro\ud800' } }, '/properties/plan'],
      [{ name: 'signup', properties: { 'pl\ud800an': 'pro' } }, '/properties'],
      [{ name: 'signup', properties: { items: [{ sku: '\udfff' }] } }, '/properties/items/0/sku'],
      [{ name: 'pageview', url: 'https://shop.example/\ud800' }, '/url'],
      [{ name: 'pageview', url: 'https://shop.example/', referrer: 'https://a.example/\ud800' }, '/referrer'],
    ];
    for (const [event, pointer] of cases) {
      // JSON.stringify writes a lone surrogate as its escape (`"\ud800"`), as a sender's JSON would.
      const answer = await send('127.0.0.81', { ingestion_id: shop.ingestionId, ...event });
      expect(answer.status, pointer).toBe(400);
      const error = expectEnvelope(answer.body, 'validation_failed');
      expect(error.schema_pointer, pointer).toBe(pointer);
    }
  });
});

describe('deep nesting', () => {
  it('answers 400 with the envelope for properties nested 5 000 deep, and logs no stack', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const answer = await send(
      '127.0.0.91',
      `{"ingestion_id":"${shop.ingestionId}","name":"deep","properties":${deep}}`,
    );
    expect(answer.status).toBe(400);
    const error = expectEnvelope(answer.body, 'validation_failed');
    expect(error.schema_pointer).toBe('/properties');
    // As deep as the bound allows is accepted.
    const allowed = { a: { b: { c: { d: { e: 1 } } } } };
    const ok = await send('127.0.0.91', { ingestion_id: shop.ingestionId, name: 'ok', properties: allowed });
    expect(ok.status).toBe(202);
    const tooDeep = await send('127.0.0.91', {
      ingestion_id: shop.ingestionId,
      name: 'deep',
      properties: { a: { b: { c: { d: { e: { f: 1 } } } } } },
    });
    expect(tooDeep.status).toBe(400);
    expect(log.text()).not.toMatch(/RangeError|Maximum call stack|"stack"/);
    expect(log.entries().filter((entry) => Number(entry.level) >= 50)).toEqual([]);
  });
});

describe('event names', () => {
  it('refuses bidirectional controls in an event name (display-text)', async () => {
    const answer = await send('127.0.0.95', { ingestion_id: shop.ingestionId, name: 'invoice\u202Efdp.exe' });
    expect(answer.status).toBe(400);
    const error = expectEnvelope(answer.body, 'validation_failed');
    expect(error.schema_pointer).toBe('/name');
  });
});

describe('bounded lists', () => {
  it('an organization has at most 100 active properties, so list answers at most 100', async () => {
    const owner = await site('many.example');
    const [row] = await gateway.knex('analytics_properties').where({ id: owner.propertyId }).select('*');
    await gateway.knex('analytics_properties').insert(
      Array.from({ length: 99 }, (_, index) => ({
        ...row,
        id: randomUUID(),
        name: `Site ${index}`,
        ingestion_id: `ap_many_${index}`,
        domains: JSON.stringify(row.domains),
      })),
    );
    const refused = await refusal(
      owner.agent.run('analytics.property.manage', {
        operation: 'create',
        name: 'One more',
        domains: ['x.example'],
      }),
    );
    expect([refused.status, refused.code]).toEqual([409, 'conflict']);
    const list = await owner.agent.run('analytics.property.manage', { operation: 'list' });
    expect(list.count).toBe(100);
    // Archiving one makes room.
    await owner.agent.run('analytics.property.manage', {
      operation: 'archive',
      property_id: owner.propertyId,
    });
    await owner.agent.run('analytics.property.manage', {
      operation: 'create',
      name: 'One more',
      domains: ['x.example'],
    });
  });
});
