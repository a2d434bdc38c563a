// The analytics domain's own machinery on a real (PGlite) database: an accepted event is answered 202
// at once and committed in the writer's next batch (or when the service stops), a property past its
// share of the queue answers 503, an outage delays the rows and a refused row is dropped alone, retention deletes what a property no longer keeps (and the salts that could
// recompute visitor ids), and the domain check accepts a property's domains and their subdomains only.

import { randomUUID } from 'node:crypto';
import { errorCodes, readSettings } from '@agw/contracts';
import { beforeEach, describe, expect, it } from 'vitest';
import { analyticsDomain } from '../src/analytics/index.js';
import { hostAllowed } from '../src/analytics/ingestion.js';
import { analyticsSettings } from '../src/analytics/settings.js';
import { type EventRecord, EventWriter } from '../src/analytics/writer.js';
import type { DomainHost, DomainService, PublicRoute } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/pglite-sql.js';

const ORG = '00000000-0000-4000-8000-0000000000a1';
const NOW = new Date('2026-11-24T12:00:00Z');
let database: TestDatabase;
let service: DomainService;
let route: PublicRoute;

function hostOf(db: TestDatabase, env: Record<string, string> = {}): DomainHost {
  return {
    sql: {
      ...db.sql,
      transaction: (fn) =>
        db.db.transaction((tx) =>
          fn({
            query: async (text, params = []) => {
              const result = await tx.query(text, params as unknown[]);
              return { rows: result.rows as never[], rowCount: result.affectedRows ?? result.rows.length };
            },
          }),
        ),
    },
    asTenant: () => Promise.reject(new Error('not used')),
    rateLimit: async () => ({ allowed: true, retryAfterSeconds: 0 }),
    publicBaseUrl: 'http://gateway.test',
    ids: { uuid: randomUUID },
    clock: { now: () => NOW },
    log: { info() {}, warn() {}, error() {} },
    // The gateway renders the envelope; here the refusal is read as the route returned it.
    error: (code, { headers, ...error } = {}) => ({
      status: errorCodes[code].status,
      ...(headers === undefined ? {} : { headers }),
      error: { code, ...error },
    }),
    settings: readSettings(analyticsSettings, env),
  };
}

async function property(retentionDays: number): Promise<{ id: string; ingestionId: string }> {
  const id = randomUUID();
  const ingestionId = `ap_${id.slice(0, 8)}`;
  await database.db.query(
    `insert into analytics_properties (id, organization_id, name, domains, timezone, ingestion_id, retention_days,
       created_at, updated_at) values ($1, $2, 'Site', '["shop.example"]', 'UTC', $3, $4, $5, $5)`,
    [id, ORG, ingestionId, retentionDays, NOW],
  );
  return { id, ingestionId };
}

beforeEach(async () => {
  database = await createTestDatabase();
  await database.seed(ORG, '00000000-0000-4000-8000-0000000000b1');
  service = (analyticsDomain.start as (host: DomainHost) => DomainService)(hostOf(database));
  route = service.routes?.find((candidate) => candidate.method === 'POST') as PublicRoute;
});

const request = (body: unknown) => ({
  params: {},
  query: new URLSearchParams(),
  headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0' },
  body: new TextEncoder().encode(JSON.stringify(body)),
  clientAddress: '203.0.113.9',
  requestId: 'test',
});

describe('ingestion', () => {
  it('answers 202 before the write and commits the events right after', async () => {
    const { ingestionId } = await property(30);
    const answer = await route.handle(
      request({
        ingestion_id: ingestionId,
        events: [{ name: 'pageview', url: 'https://shop.example/a' }, { name: 'order' }],
      }),
    );
    expect(answer).toMatchObject({ status: 202, body: { accepted: 2 } });
    const stored = () =>
      database.db.query<{ name: string; visitor_id: string | null }>(
        'select name, visitor_id from analytics_events order by name',
      );
    // Not yet: the request did not wait for the database.
    expect((await stored()).rows).toEqual([]);
    await service.stop?.();
    const { rows } = await stored();
    expect(rows.map((row) => row.name)).toEqual(['order', 'pageview']);
    // A server's event (no page) has no visitor; a page view has one, never the address itself.
    expect(rows[0]?.visitor_id).toBeNull();
    expect(rows[1]?.visitor_id).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(rows)).not.toContain('203.0.113.9');
  });

  it('answers 400 naming the field for a NUL character (U+0000), which the database cannot store', async () => {
    const { ingestionId } = await property(30);
    const refused = async (event: Record<string, unknown>) =>
      route.handle(request({ ingestion_id: ingestionId, events: [{ name: 'ok' }, event] }));
    expect(await refused({ name: 'sign\u0000up' })).toMatchObject({
      status: 400,
      error: { details: [{ schema_pointer: '/events/1/name', keyword: 'characters' }] },
    });
    expect(await refused({ name: 'signup', properties: { plan: 'pro\u0000' } })).toMatchObject({
      status: 400,
      error: { details: [{ schema_pointer: '/events/1/properties/plan', keyword: 'characters' }] },
    });
    // A backslash before `u0000` is text, not the character.
    expect(await refused({ name: 'signup', properties: { path: 'C:\\u0000' } })).toMatchObject({
      status: 202,
    });
  });

  it('answers 429 past the per-address limit of a minute, counting events, not requests', async () => {
    const { ingestionId } = await property(30);
    const limited = (analyticsDomain.start as (host: DomainHost) => DomainService)(hostOf(database));
    const post = limited.routes?.find((candidate) => candidate.method === 'POST') as PublicRoute;
    const strict = (analyticsDomain.start as (host: DomainHost) => DomainService)(
      hostOf(database, { ANALYTICS_EVENTS_PER_MINUTE: '3' }),
    );
    const strictPost = strict.routes?.find((candidate) => candidate.method === 'POST') as PublicRoute;
    const one = { ingestion_id: ingestionId, name: 'order' };
    const two = { ingestion_id: ingestionId, events: [{ name: 'order' }, { name: 'order' }] };
    expect((await strictPost.handle(request(two))).status).toBe(202);
    expect((await strictPost.handle(request(one))).status).toBe(202);
    const fourth = await strictPost.handle(request(one));
    expect(fourth.status).toBe(429);
    expect(fourth.error).toMatchObject({ code: 'rate_limited' });
    expect(fourth.error?.retryAfterSeconds).toBeGreaterThan(0);
    // A batch larger than what is left of a fresh address's budget is refused whole.
    const four = { ingestion_id: ingestionId, events: Array.from({ length: 4 }, () => ({ name: 'order' })) };
    expect((await strictPost.handle({ ...request(four), clientAddress: '198.51.100.8' })).status).toBe(429);
    // Another address, or the default limit, is not affected.
    expect((await strictPost.handle({ ...request(one), clientAddress: '198.51.100.7' })).status).toBe(202);
    expect((await post.handle(request(two))).status).toBe(202);
    await Promise.all([limited.stop?.(), strict.stop?.(), service.stop?.()]);
  });

  it('refuses properties nested deeper than 5 levels before walking them recursively', async () => {
    const { ingestionId } = await property(30);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const body = new TextEncoder().encode(
      `{"ingestion_id":"${ingestionId}","name":"x","properties":{"a":${deep}}}`,
    );
    const answer = await route.handle({ ...request({}), body });
    expect(answer).toMatchObject({
      status: 400,
      error: { schemaPointer: '/properties', details: [{ keyword: 'maxDepth' }] },
    });
  });
});

describe('the event writer', () => {
  const log = { info() {}, warn() {}, error() {} };
  async function rowOf(name: string, propertyId: string): Promise<EventRecord> {
    return {
      i: randomUUID(),
      p: propertyId,
      r: NOW.getTime(),
      n: name,
      c: undefined,
      s: undefined,
      u: undefined,
      h: undefined,
      a: undefined,
      f: undefined,
      v: undefined,
    };
  }
  const names = async () =>
    (await database.db.query<{ name: string }>('select name from analytics_events order by name')).rows.map(
      (row) => row.name,
    );

  it('shares its queue: one organization fills at most what it leaves free, another still gets in', async () => {
    const flood = await property(30);
    const floodToo = await property(30);
    const quiet = await property(30);
    const other = await property(30);
    const writer = new EventWriter(hostOf(database).sql, log, { maxQueued: 10 });
    const rows = (count: number, name: string, id: string) =>
      Promise.all(Array.from({ length: count }, (_, index) => rowOf(`${name}${index}`, id)));
    // The writer shares by the organization ingestion names; here three tenants' keys, one database org.
    // Alone, an organization holds at most half of the queue, through any of its properties.
    expect(writer.accept('tenant-flood', await rows(4, 'f', flood.id))).toBe(true);
    expect(writer.accept('tenant-flood', await rows(1, 'e', floodToo.id))).toBe(true);
    expect(writer.accept('tenant-flood', await rows(1, 'g', floodToo.id))).toBe(false);
    // Another organization still gets its events in, up to what it leaves free for the rest.
    expect(writer.accept('tenant-quiet', await rows(1, 'q', quiet.id))).toBe(true);
    expect(writer.accept('tenant-quiet', await rows(1, 'r', quiet.id))).toBe(true);
    expect(writer.accept('tenant-quiet', await rows(1, 's', quiet.id))).toBe(false);
    // A third one too.
    expect(writer.accept('tenant-other', await rows(1, 'o', other.id))).toBe(true);
    expect(writer.queued).toBe(8);
    await writer.drain();
    expect(await names()).toEqual(['e0', 'f0', 'f1', 'f2', 'f3', 'o0', 'q0', 'r0']);
    // Written rows leave the organization's share.
    expect(writer.accept('tenant-flood', await rows(5, 'n', floodToo.id))).toBe(true);
    await writer.drain();
  });

  it('reports what it holds and what it lost (the gateway exports both as metrics)', async () => {
    const { id } = await property(30);
    const writer = new EventWriter(hostOf(database).sql, log);
    // Two rows of a live property, one of a property that no longer exists: that one is lost.
    writer.accept(ORG, [
      await rowOf('kept1', id),
      await rowOf('kept2', id),
      await rowOf('gone', randomUUID()),
    ]);
    expect([writer.queued, writer.dropped]).toEqual([3, 0]);
    await writer.drain();
    expect([writer.queued, writer.dropped]).toEqual([0, 1]);
  });

  it('writes the events that arrive within moments of each other with one statement', async () => {
    const { id } = await property(30);
    const sql = hostOf(database).sql;
    let statements = 0;
    const counting: typeof sql = {
      ...sql,
      query: (text, params, options) => {
        statements += 1;
        return sql.query(text, params, options);
      },
    };
    // A gathering time far above the test's 2 ms gaps, so a busy machine (a slow first write, late
    // timers) cannot split the batch; the default's use is measured in bench/analytics-ingest.mjs.
    const writer = new EventWriter(counting, log, { gatherMs: 1000 });
    // The first event of a quiet moment is written at once; the next ones, a few ms apart, wait for
    // each other instead of costing a statement each.
    writer.accept(ORG, [await rowOf('a', id)]);
    for (const name of ['b', 'c', 'd']) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      writer.accept(ORG, [await rowOf(name, id)]);
    }
    await writer.drain();
    expect(await names()).toEqual(['a', 'b', 'c', 'd']);
    expect(statements).toBe(2);
  });

  it('catches up on a backlog two statements at a time, and writes every event', async () => {
    const { id } = await property(30);
    const sql = hostOf(database).sql;
    let inFlight = 0;
    let most = 0;
    const watched: typeof sql = {
      ...sql,
      query: async (text, params, options) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        try {
          return await sql.query(text, params, options);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const writer = new EventWriter(watched, log);
    const backlog = await Promise.all(Array.from({ length: 1800 }, (_, index) => rowOf(`e${index}`, id)));
    expect(writer.accept(ORG, backlog)).toBe(true);
    await writer.drain();
    expect(most).toBe(2);
    const { rows } = await database.db.query<{ count: number }>(
      'select count(*)::int as count from analytics_events',
    );
    expect(rows[0]?.count).toBe(1800);
  });

  it('keeps the rows through an outage and writes them once the database answers again', async () => {
    const { id } = await property(30);
    const sql = hostOf(database).sql;
    let failures = 1;
    const flaky: typeof sql = {
      ...sql,
      query: (text, params, options) => {
        if (failures > 0) {
          failures -= 1;
          return Promise.reject(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }));
        }
        return sql.query(text, params, options);
      },
    };
    const writer = new EventWriter(flaky, log);
    writer.accept(ORG, [await rowOf('kept', id)]);
    // The retry comes a second after the failure (drain would give up instead: the process is ending).
    for (let waited = 0; writer.queued > 0 && waited < 5000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await writer.drain();
    expect(failures).toBe(0);
    expect(await names()).toEqual(['kept']);
  });

  it('writes events whose organization is deleted with them, through their property', async () => {
    const { id } = await property(30);
    const writer = new EventWriter(hostOf(database).sql, log);
    writer.accept(ORG, [await rowOf('kept until the organization goes', id)]);
    await writer.drain();
    expect(await names()).toHaveLength(1);
    await database.db.query('delete from installations where organization_id = $1', [ORG]);
    await database.db.query('delete from organizations where id = $1', [ORG]);
    expect(await names()).toEqual([]);
  });

  it('drops a row whose value the database cannot hold (U+0000), not the rest of its batch', async () => {
    const { id } = await property(30);
    const writer = new EventWriter(hostOf(database).sql, log);
    writer.accept(ORG, [await rowOf('first', id), await rowOf('nul\u0000name', id), await rowOf('last', id)]);
    await writer.drain();
    expect(await names()).toEqual(['first', 'last']);
  });

  it('drops the events of a property that is gone, not the rest of its batch, and says how many', async () => {
    const { id } = await property(30);
    const warnings: unknown[] = [];
    const warn = (fields: Record<string, unknown>, message: string) => warnings.push({ ...fields, message });
    const writer = new EventWriter(hostOf(database).sql, { ...log, warn });
    writer.accept(ORG, [
      await rowOf('first', id),
      await rowOf('orphan', randomUUID()),
      await rowOf('last', id),
    ]);
    await writer.drain();
    expect(await names()).toEqual(['first', 'last']);
    expect(warnings).toEqual([{ dropped_events: 1, message: 'events of a deleted property dropped' }]);
  });

  it('deletes the events of a property deleted on its own', async () => {
    const gone = await property(30);
    const kept = await property(30);
    const writer = new EventWriter(hostOf(database).sql, log);
    writer.accept(ORG, [await rowOf('of the deleted property', gone.id), await rowOf('kept', kept.id)]);
    await writer.drain();
    await database.db.query('delete from analytics_properties where id = $1', [gone.id]);
    expect(await names()).toEqual(['kept']);
  });
});

describe('retention', () => {
  it("deletes events past each property's retention and salts older than yesterday", async () => {
    const short = await property(1);
    const long = await property(30);
    const event = (propertyId: string, daysAgo: number) =>
      database.db.query(
        `insert into analytics_events (id, organization_id, property_id, occurred_at, received_at, name)
         values ($1, $2, $3, $4, $4, 'pageview')`,
        [randomUUID(), ORG, propertyId, new Date(NOW.getTime() - daysAgo * 86_400_000)],
      );
    await event(short.id, 3);
    await event(short.id, 0.5);
    await event(long.id, 3);
    await event(long.id, 40);
    for (const day of ['2026-11-21', '2026-11-23', '2026-11-24']) {
      await database.db.query(`insert into analytics_salts (day, salt) values ($1, 'x')`, [day]);
    }
    await service.tasks?.find((task) => task.name === 'analytics.retention')?.run();
    const { rows } = await database.db.query<{ property_id: string; days: number }>(
      `select property_id, round(extract(epoch from ($1::timestamptz - occurred_at)) / 86400, 1)::float8 as days
       from analytics_events order by property_id, days`,
      [NOW],
    );
    expect(rows.filter((row) => row.property_id === short.id).map((row) => row.days)).toEqual([0.5]);
    expect(rows.filter((row) => row.property_id === long.id).map((row) => row.days)).toEqual([3]);
    const salts = await database.db.query<{ day: string }>(
      `select to_char(day, 'YYYY-MM-DD') as day from analytics_salts order by day`,
    );
    expect(salts.rows.map((row) => row.day)).toEqual(['2026-11-23', '2026-11-24']);
  });
});

describe('the domain check', () => {
  it('accepts the property domains and their subdomains, nothing else', () => {
    const domains = ['shop.example', 'localhost:8080'];
    expect(hostAllowed(new URL('https://shop.example/x'), domains)).toBe(true);
    expect(hostAllowed(new URL('https://www.shop.example/'), domains)).toBe(true);
    expect(hostAllowed(new URL('https://evilshop.example/'), domains)).toBe(false);
    expect(hostAllowed(new URL('https://shop.example.evil.test/'), domains)).toBe(false);
    expect(hostAllowed(new URL('http://localhost:8080/'), domains)).toBe(true);
    expect(hostAllowed(new URL('http://localhost:9090/'), domains)).toBe(false);
  });
});
