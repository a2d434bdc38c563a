// The analytics domain's own machinery on a real (PGlite) database: an accepted event is committed
// before its 202, retention deletes what a property no longer keeps (and the salts that could
// recompute visitor ids), and the domain check accepts a property's domains and their subdomains only.

import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { analyticsDomain } from '../src/analytics/index.js';
import { hostAllowed } from '../src/analytics/ingestion.js';
import type { DomainHost, DomainService, PublicRoute } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/pglite-sql.js';

const ORG = '00000000-0000-4000-8000-0000000000a1';
const NOW = new Date('2026-11-24T12:00:00Z');
let database: TestDatabase;
let service: DomainService;
let route: PublicRoute;

function hostOf(db: TestDatabase): DomainHost {
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
  it('answers 202 only once the events are committed', async () => {
    const { ingestionId } = await property(30);
    const answer = await route.handle(
      request({
        ingestion_id: ingestionId,
        events: [{ name: 'pageview', url: 'https://shop.example/a' }, { name: 'order' }],
      }),
    );
    expect(answer).toMatchObject({ status: 202, body: { accepted: 2 } });
    const { rows } = await database.db.query<{ name: string; visitor_id: string | null }>(
      'select name, visitor_id from analytics_events order by name',
    );
    expect(rows.map((row) => row.name)).toEqual(['order', 'pageview']);
    // A server's event (no page) has no visitor; a page view has one, never the address itself.
    expect(rows[0]?.visitor_id).toBeNull();
    expect(rows[1]?.visitor_id).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(rows)).not.toContain('203.0.113.9');
    await service.stop?.();
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
