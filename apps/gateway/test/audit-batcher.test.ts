import { randomUUID } from 'node:crypto';
import type { Sql } from '@agw/capabilities';
import { describe, expect, it } from 'vitest';
import { sqlPoolOf } from '../src/db/pool.js';
import { createAuditBatcher } from '../src/ports/audit-batcher.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

// The group commit of audit rows written outside a transaction (refusals, free reads).
const gateway = useGateway();

const row = (requestId: string, httpStatus: unknown = 200) => ({
  audit_id: randomUUID(),
  request_id: requestId,
  actor: 'anonymous',
  action: 'test.batch',
  outcome: 'succeeded',
  // A bad status (not an integer) is how a test makes one row fail.
  http_status: httpStatus as number,
  details: '{}',
});

/** The SQL port on the gateway's pool, counting the INSERTs into audit_events sent through it. */
function countingSql(): { readonly sql: Sql; readonly count: () => number } {
  const pool = sqlPoolOf(gateway.knex);
  let inserts = 0;
  const sql: Sql = {
    query(text, params, options) {
      if (/^insert into audit_events/i.test(text)) inserts += 1;
      return pool.query(text, params, options);
    },
  };
  return { sql, count: () => inserts };
}

describe('audit group commit', () => {
  it('writes 50 concurrent requests in fewer INSERTs, each resolved only once its rows are stored', async () => {
    const counter = countingSql();
    const batcher = createAuditBatcher(counter.sql);
    const tag = randomUUID();
    await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        const requestId = `${tag}-${index}`;
        await batcher.write([row(requestId), row(requestId)]);
        // Durable when the write resolves: both of this request's rows are readable.
        const stored = await gateway.knex('audit_events').where({ request_id: requestId }).count('* as n');
        expect(Number(stored[0]?.n)).toBe(2);
      }),
    );
    expect(counter.count()).toBeLessThan(50);
    const all = await gateway.knex('audit_events').where('request_id', 'like', `${tag}-%`).count('* as n');
    expect(Number(all[0]?.n)).toBe(100);
  });

  it('a bad row fails only its own request; the others in its batch are stored', async () => {
    const batcher = createAuditBatcher(sqlPoolOf(gateway.knex));
    const tag = randomUUID();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) =>
        batcher.write([row(`${tag}-${index}`, index === 4 ? 'not a status' : 200)]),
      ),
    );
    expect(results.map((result) => result.status)).toEqual([
      ...Array(4).fill('fulfilled'),
      'rejected',
      ...Array(5).fill('fulfilled'),
    ]);
    const stored = await gateway.knex('audit_events').where('request_id', 'like', `${tag}-%`).count('* as n');
    expect(Number(stored[0]?.n)).toBe(9);
  });

  // Written together, the rows go in one statement as one JSON text; written one at a time, each goes in a
  // statement of its own with its columns as parameters (src/ports/audit-rows.ts): the same values either way.
  it.each(['together', 'one at a time'])(
    'stores each column as given, rows written %s: details with quotes, backslashes and non-ASCII; a Date time; a missing time is now()',
    async (how) => {
      const batcher = createAuditBatcher(sqlPoolOf(gateway.knex));
      const tag = randomUUID();
      const details = { note: 'a "quoted" \\ back\nslash, é, 😀, \u2028', nested: { list: [1, null, true] } };
      const at = '2026-11-20T10:00:00.123456Z';
      const rows = [
        { ...row(`${tag}-0`), occurred_at: at, details: JSON.stringify(details) },
        { ...row(`${tag}-1`, 503), actor: 'installation:x', outcome: 'denied' },
        { ...row(`${tag}-2`), occurred_at: new Date('2026-11-20T11:00:00.456Z') },
      ];
      const before = Date.now();
      if (how === 'together') await batcher.write(rows);
      else for (const entry of rows) await batcher.write([entry]);
      const stored = await gateway
        .knex('audit_events')
        .where('request_id', 'like', `${tag}-%`)
        .orderBy('request_id')
        .select('audit_id', 'request_id', 'actor', 'outcome', 'http_status', 'details', 'occurred_at');
      expect(stored.map((event) => event.audit_id)).toEqual(rows.map((entry) => entry.audit_id));
      expect(stored[0]).toMatchObject({
        request_id: `${tag}-0`,
        outcome: 'succeeded',
        http_status: 200,
        details,
      });
      expect(new Date(stored[0]?.occurred_at).toISOString()).toBe('2026-11-20T10:00:00.123Z');
      expect(stored[1]).toMatchObject({
        actor: 'installation:x',
        outcome: 'denied',
        http_status: 503,
        details: {},
      });
      expect(new Date(stored[1]?.occurred_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(new Date(stored[2]?.occurred_at).toISOString()).toBe('2026-11-20T11:00:00.456Z');
    },
  );

  it('concurrent free reads answer with audit ids that are all stored', async () => {
    const { key } = await approvedInstallation(gateway);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        gateway.client.post('/mcp/invoke', { id: 'core.org.current.get', params: {} }, { key, idem: null }),
      ),
    );
    const ids = answers.map((answer) => {
      expect(answer.status).toBe(200);
      return answer.json.audit_id as string;
    });
    const stored = await gateway.knex('audit_events').whereIn('audit_id', ids).select('audit_id', 'outcome');
    expect(stored).toHaveLength(20);
    expect(new Set(stored.map((event) => event.outcome))).toEqual(new Set(['succeeded']));
  });
});
