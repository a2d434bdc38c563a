// `agw audit list|verify` end to end: the CLI from source against an in-process gateway whose own
// sealer chains the rows real requests wrote. verify exits 0 while the chain is intact and 7 once a
// sealed row was changed behind the append-only trigger's back (as a database superuser could).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { startTestGateway, type TestGateway } from './helpers/test-gateway.js';

let test: TestGateway;
const notFoundAuditIds: string[] = [];

beforeAll(async () => {
  test = await startTestGateway();
  for (const path of ['/no-such-route-1', '/no-such-route-2', '/no-such-route-3']) {
    const answer = (await (await fetch(`${test.gateway.url}${path}`)).json()) as {
      error: { audit_id: string };
    };
    notFoundAuditIds.push(answer.error.audit_id);
  }
  // The gateway seals every second; wait (bounded) until these rows are in the chain.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const sealed = await test.gateway
      .knex('audit_chain as c')
      .join('audit_events as e', 'e.id', 'c.event_id')
      .whereIn('e.audit_id', notFoundAuditIds)
      .count('* as n')
      .first();
    if (Number(sealed?.n) === notFoundAuditIds.length) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(async () => {
  await test?.close();
});

const operator = (args: string[]) => runCli(args, test.env);

describe('agw audit list', () => {
  it('--json prints the rows newest first with their seq, never a key', async () => {
    const result = await operator(['audit', 'list', '--action', 'http.request', '--json']);
    expect(result.code).toBe(0);
    const page = JSON.parse(result.stdout) as {
      events: Array<{ audit_id: string; seq: number | null; action: string; http_status: number }>;
      next_cursor: string | null;
    };
    expect(page.events.map((event) => event.audit_id).slice(0, 3)).toEqual([...notFoundAuditIds].reverse());
    for (const event of page.events) {
      expect(event).toMatchObject({ action: 'http.request', http_status: 404 });
      expect(event.seq).toEqual(expect.any(Number));
    }
    expect(result.stdout).not.toContain(test.operatorKey);
  });

  it('prints a table and how to get the next page', async () => {
    const result = await operator(['audit', 'list', '--outcome', 'failed', '--limit', '2']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/SEQ\s+TIME \(UTC\)\s+ACTOR\s+ACTION\s+OUTCOME\s+HTTP\s+AUDIT ID/);
    expect(result.stdout).toContain(notFoundAuditIds[2]);
    const cursor = /--cursor (\S+)/.exec(result.stdout)?.[1];
    expect(cursor).toBeDefined();
    const next = await operator([
      'audit',
      'list',
      '--outcome',
      'failed',
      '--limit',
      '2',
      '--cursor',
      `${cursor}`,
    ]);
    expect(next.stdout).toContain(notFoundAuditIds[0]);
    expect((await operator(['audit', 'list', '--limit', '0'])).code).toBe(2);
  });
});

describe('agw audit verify', () => {
  it('exits 0 while intact and 7 once a sealed row was changed', async () => {
    const intact = await operator(['audit', 'verify']);
    expect(intact.code).toBe(0);
    expect(intact.stdout).toMatch(/result\s+intact/);
    const anchor = /--anchor (\d+:[0-9a-f]{64})/.exec(intact.stdout)?.[1];
    expect(anchor).toBeDefined();
    expect((await operator(['audit', 'verify', '--anchor', `${anchor}`])).code).toBe(0);
    expect((await operator(['audit', 'verify', '--anchor', 'nonsense'])).code).toBe(2);

    const target = await test.gateway
      .knex('audit_chain as c')
      .join('audit_events as e', 'e.id', 'c.event_id')
      .where('e.audit_id', notFoundAuditIds[1])
      .first('c.seq', 'e.id');
    await test.gateway.knex.transaction(async (trx) => {
      await trx.raw('set local session_replication_role = replica');
      await trx.raw(`update audit_events set http_status = 200 where id = ?`, [target.id]);
    });

    const tampered = await operator(['audit', 'verify']);
    expect(tampered.code).toBe(7);
    expect(tampered.stdout).toMatch(/result\s+TAMPERED/);
    expect(tampered.stderr).toContain(`tampered at seq ${target.seq} (hash_mismatch)`);
    const json = await operator(['audit', 'verify', '--json']);
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      first_bad: { seq: Number(target.seq), reason: 'hash_mismatch', audit_id: notFoundAuditIds[1] },
    });
  });
});
