// Daily rollups must not change a single number: stats read from rolled-up days (and the raw events of
// the window's partial days) equal stats read from the raw events alone — for ten days of generated
// traffic in a time zone with daylight saving, by day and by hour, after a late event made a day stale,
// and after the property moved to another time zone.

import { randomUUID } from 'node:crypto';
import { errorCodes, readSettings } from '@agw/contracts';
import { beforeEach, describe, expect, it } from 'vitest';
import { analyticsDomain } from '../src/analytics/index.js';
import { rollUp } from '../src/analytics/rollup.js';
import { analyticsSettings } from '../src/analytics/settings.js';
import type { CapabilityHandler } from '../src/define.js';
import type { DomainHost, DomainService, PublicRoute } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/pglite-sql.js';

const ORG = '00000000-0000-4000-8000-0000000000a1';
// 12:00 UTC; the window reaches back over the end of summer time in Europe/Berlin (2026-10-25).
const NOW = new Date('2026-10-30T12:00:00Z');
const HOUR = 3_600_000;
let database: TestDatabase;
let service: DomainService;
let route: PublicRoute;
let propertyId: string;
let ingestionId: string;

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

const stats = analyticsDomain.handlers.find(
  (handler) => handler.contract.id === 'analytics.stats.read',
) as unknown as CapabilityHandler<Record<string, unknown>, unknown>;

function read(input: Record<string, unknown>) {
  return stats.handle(input as never, { organizationId: ORG, now: NOW, sql: database.sql } as never);
}

/** A small deterministic generator, so a failure replays. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

async function send(visitor: number, events: Record<string, unknown>[]): Promise<void> {
  const answer = await route.handle({
    params: {},
    query: new URLSearchParams(),
    headers: {
      'user-agent': `Mozilla/5.0 (X11; Linux x86_64; rv:${100 + visitor}.0) Gecko/20100101 Firefox`,
    },
    body: new TextEncoder().encode(JSON.stringify({ ingestion_id: ingestionId, events })),
    clientAddress: `198.51.100.${visitor}`,
    requestId: 'test',
  });
  expect(answer.status).toBe(202);
}

beforeEach(async () => {
  database = await createTestDatabase();
  await database.seed(ORG, '00000000-0000-4000-8000-0000000000b1');
  propertyId = randomUUID();
  ingestionId = `ap_${propertyId.slice(0, 8)}`;
  await database.db.query(
    `insert into analytics_properties (id, organization_id, name, domains, timezone, ingestion_id, retention_days,
       created_at, updated_at) values ($1, $2, 'Shop', '["shop.example"]', 'Europe/Berlin', $3, 400, $4, $4)`,
    [propertyId, ORG, ingestionId, NOW],
  );
  service = (analyticsDomain.start as (host: DomainHost) => DomainService)(hostOf(database));
  route = service.routes?.find((candidate) => candidate.method === 'POST') as PublicRoute;
  // Ten days of visits (some across local midnight), page views, signups, errors and server events.
  const next = random(11);
  for (let visitor = 0; visitor < 12; visitor += 1) {
    const events: Record<string, unknown>[] = [];
    for (let visit = 0; visit < 4; visit += 1) {
      let at = NOW.getTime() - Math.floor(next() * 240) * HOUR - Math.floor(next() * 60) * 60_000;
      for (let view = 0; view < 1 + Math.floor(next() * 4); view += 1) {
        events.push({
          name: 'pageview',
          url: `https://shop.example/${['', 'pricing', 'docs'][Math.floor(next() * 3)]}`,
          referrer: view === 0 && next() < 0.5 ? 'https://www.google.com/' : undefined,
          occurred_at: new Date(at).toISOString(),
        });
        at += Math.floor(next() * 20) * 60_000;
      }
      if (next() < 0.3) {
        events.push({
          name: 'checkout_failed',
          category: 'payment',
          outcome: 'error',
          occurred_at: new Date(at).toISOString(),
        });
      }
    }
    await send(visitor, events);
  }
  await service.stop?.();
});

const WINDOWS = [
  {
    from: new Date(NOW.getTime() - 10 * 86_400_000).toISOString(),
    to: NOW.toISOString(),
    granularity: 'day',
  },
  { from: '2026-10-24T07:30:00Z', to: '2026-10-27T05:00:00Z', granularity: 'hour' },
  { from: '2026-10-21T22:00:00Z', to: '2026-10-29T23:00:00Z', granularity: 'day' },
];

describe('daily rollups', () => {
  it('answer exactly what the raw events answer, by day and by hour', async () => {
    const raw = await Promise.all(WINDOWS.map(read));
    expect((raw[0] as { totals: { events: number } }).totals.events).toBeGreaterThan(50);
    expect(await rollUp(hostOf(database).sql, NOW)).toBeGreaterThanOrEqual(10);
    const { rows } = await database.db.query<{ n: number }>(
      'select count(*)::int as n from analytics_rollup_days',
    );
    expect(rows[0]?.n).toBeGreaterThanOrEqual(10);
    for (const [index, window] of WINDOWS.entries())
      expect(await read(window), JSON.stringify(window)).toEqual(raw[index]);
    // Nothing left to do on the next run, and finding that out is one statement, not two a property.
    const sql = hostOf(database).sql;
    const sent: string[] = [];
    const counting = {
      ...sql,
      query: ((text, params) => {
        sent.push(text);
        return sql.query(text, params);
      }) as typeof sql.query,
    };
    expect(await rollUp(counting, NOW)).toBe(0);
    expect(sent).toHaveLength(1);
    // The next local day is over (and settled) at 00:15 Berlin: that run rolls it up.
    expect(await rollUp(sql, new Date('2026-10-30T23:15:00Z'))).toBe(1);
  });

  it('a late event makes its day stale: read from the events until the day is rolled up again', async () => {
    await rollUp(hostOf(database).sql, NOW);
    service = (analyticsDomain.start as (host: DomainHost) => DomainService)(hostOf(database));
    route = service.routes?.find((candidate) => candidate.method === 'POST') as PublicRoute;
    await send(40, [{ name: 'refund', occurred_at: new Date(NOW.getTime() - 5 * 86_400_000).toISOString() }]);
    await service.stop?.();
    const { rows } = await database.db.query('select day from analytics_rollup_stale');
    expect(rows.length).toBe(1);
    const fresh = await read(WINDOWS[0] as Record<string, unknown>);
    expect((fresh as { events_by_name: { name: string }[] }).events_by_name.map((row) => row.name)).toContain(
      'refund',
    );
    expect(await rollUp(hostOf(database).sql, NOW)).toBe(1);
    expect((await database.db.query('select day from analytics_rollup_stale')).rows).toEqual([]);
    expect(await read(WINDOWS[0] as Record<string, unknown>)).toEqual(fresh);
  });

  it('after a change of time zone, days before it are read from the events', async () => {
    await rollUp(hostOf(database).sql, NOW);
    const manage = analyticsDomain.handlers.find(
      (handler) => handler.contract.id === 'analytics.property.manage',
    ) as unknown as CapabilityHandler<Record<string, unknown>, unknown>;
    const change = (timezone: string) =>
      manage.handle(
        { operation: 'update', property_id: propertyId, timezone } as never,
        { organizationId: ORG, now: NOW, sql: database.sql } as never,
      );
    const since = async () =>
      (
        await database.db.query<{ timezone_since: Date | null }>(
          'select timezone_since from analytics_properties where id = $1',
          [propertyId],
        )
      ).rows[0]?.timezone_since;
    await change('Europe/Berlin');
    expect(await since()).toBeNull();
    await change('America/New_York');
    expect(await since()).toEqual(NOW);
    const raw = await read(WINDOWS[0] as Record<string, unknown>);
    expect((raw as { window: { timezone: string } }).window.timezone).toBe('America/New_York');
    // The day of the change is not over yet: nothing to roll up in the new zone.
    expect(await rollUp(hostOf(database).sql, NOW)).toBe(0);
    expect(await read(WINDOWS[0] as Record<string, unknown>)).toEqual(raw);
    // Eleven days later, the days since the change are rolled up, and still nothing changes.
    const later = new Date(NOW.getTime() + 11 * 86_400_000);
    expect(await rollUp(hostOf(database).sql, later)).toBeGreaterThanOrEqual(10);
    expect(await read(WINDOWS[0] as Record<string, unknown>)).toEqual(raw);
  });

  it('retention deletes rolled-up days with the events, and the rest still adds up', async () => {
    await rollUp(hostOf(database).sql, NOW);
    await database.db.query('update analytics_properties set retention_days = 5 where id = $1', [propertyId]);
    await service.tasks?.find((task) => task.name === 'analytics.retention')?.run();
    const { rows } = await database.db.query<{ starts_at: Date }>(
      'select starts_at from analytics_rollup_days order by starts_at',
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => new Date(row.starts_at).getTime() >= NOW.getTime() - 5 * 86_400_000)).toBe(
      true,
    );
    const rolled = await read(WINDOWS[0] as Record<string, unknown>);
    await database.db.query('delete from analytics_rollup_days');
    expect(await read(WINDOWS[0] as Record<string, unknown>)).toEqual(rolled);
  });
});
