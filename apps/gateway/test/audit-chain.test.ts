// The tamper-evident audit log: rows written by real requests are sealed into the hash chain by the
// gateway's own sealer, GET /admin/audit lists them, GET /admin/audit/verify recomputes the chain and
// names the first seq that was changed, deleted or cut off. Tampering goes around the append-only
// triggers the way a database superuser could (session_replication_role = replica); every tamper is
// undone afterwards so the next test starts from an intact chain.
import { ConfigError, loadConfig, startGateway } from '@agw/gateway';
import type { Knex } from 'knex';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminFetch } from './helpers/admin-fixtures.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

// Fast enough that waiting for the background sealer is short, slow enough to interleave with requests.
const gateway = useGateway({ env: { AUDIT_SEAL_INTERVAL_MS: '50' } });

let key: string;
let organizationId: string;
let installationId: string;
beforeAll(async () => {
  ({ key, organizationId, installationId } = await approvedInstallation(gateway));
});

type Verification = {
  ok: boolean;
  sealed: number;
  unsealed: number;
  head: { seq: number; hash: string } | null;
  first_bad: { seq: number; reason: string; message: string; audit_id: string | null } | null;
};

async function admin(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return adminFetch(`${gateway.url}${path}`, gateway.operatorKey);
}

async function verify(query = ''): Promise<Verification> {
  const answer = await admin(`/admin/audit/verify${query}`);
  expect(answer.status).toBe(200);
  return answer.body as unknown as Verification;
}

/** Polls verify until the background sealer has reached every row (bounded). */
async function sealedByTheGateway(): Promise<Verification> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = await verify();
    if (result.unsealed === 0 || Date.now() > deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function readInvoke(): Promise<string> {
  const answer = await gateway.client.post(
    '/mcp/invoke',
    { id: 'core.org.current.get', params: {} },
    { idem: null, key },
  );
  expect(answer.status).toBe(200);
  return answer.json.audit_id as string;
}

/** Runs `work` with the append-only triggers (and foreign keys) switched off, as a superuser could. */
async function bypassingTriggers(work: (trx: Knex.Transaction) => Promise<unknown>): Promise<void> {
  await gateway.knex.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    await work(trx);
  });
}

/** A sealed entry in the middle of the chain with its audit row. */
async function middleEntry(): Promise<{ seq: number; event_id: string; audit_id: string }> {
  const { n } = (await gateway.knex('audit_chain').count('* as n').first()) as { n: string | number };
  const seq = Math.floor(Number(n) / 2);
  const row = await gateway
    .knex('audit_chain as c')
    .join('audit_events as e', 'e.id', 'c.event_id')
    .where('c.seq', seq)
    .first('c.seq', 'c.event_id', 'e.audit_id');
  return { seq: Number(row.seq), event_id: row.event_id, audit_id: row.audit_id };
}

describe('sealing and verifying', () => {
  it('seals the rows real requests wrote, in a gapless chain that verifies', async () => {
    const auditIds = [await readInvoke(), await readInvoke()];
    const missing = await gateway.client.get('/no-such-route');
    expect(missing.status).toBe(404);
    const result = await sealedByTheGateway();
    expect(result).toMatchObject({ ok: true, unsealed: 0, first_bad: null });
    expect(result.sealed).toBeGreaterThanOrEqual(5);
    expect(result.head).toEqual({ seq: result.sealed, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const sealed = await gateway
      .knex('audit_chain as c')
      .join('audit_events as e', 'e.id', 'c.event_id')
      .whereIn('e.audit_id', [...auditIds, missing.json.error.audit_id])
      .pluck('c.seq');
    expect(sealed).toHaveLength(3);
  });

  it('lists rows newest first with their seq, filtered and paged, without secrets', async () => {
    await readInvoke();
    await sealedByTheGateway();
    const all = await admin('/admin/audit?limit=500');
    expect(all.status).toBe(200);
    const events = all.body.events as Array<Record<string, unknown>>;
    const times = events.map((event) => event.occurred_at as string);
    expect(times).toEqual([...times].sort().reverse());
    expect(events.every((event) => typeof event.seq === 'number')).toBe(true);
    expect(JSON.stringify(all.body)).not.toContain(key);
    expect(JSON.stringify(all.body)).not.toContain(gateway.operatorKey);

    const invokes = await admin(
      `/admin/audit?organization=${organizationId}&action=capability.invoke&outcome=succeeded`,
    );
    const rows = invokes.body.events as Array<Record<string, unknown>>;
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) {
      expect(row).toMatchObject({ organization_id: organizationId, action: 'capability.invoke' });
      expect(row.outcome).toBe('succeeded');
    }
    // Each guard's decision, as the operator reads it (stored compactly: src/ports/audit-trace.ts).
    const guards = ['installation_key', 'required_otps', 'operator_approval', 'scopes', 'schema', 'policy'];
    const check = [...guards, 'audit', 'billing', 'egress'].map((guard) => ({ guard, phase: 'check' }));
    expect((rows[0] as { details: { trace: unknown } }).details.trace).toEqual(
      [...check, { guard: 'billing', phase: 'settle' }].map((entry) => ({
        ...entry,
        outcome: 'pass',
        duration_ms: expect.any(Number),
      })),
    );

    const first = await admin('/admin/audit?limit=2');
    expect(first.body.events).toEqual(events.slice(0, 2));
    const second = await admin(`/admin/audit?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.events).toEqual(events.slice(2, 4));

    const since = await admin(`/admin/audit?since=${encodeURIComponent(times[1] as string)}`);
    expect((since.body.events as unknown[]).length).toBe(
      times.filter((t) => t >= (times[1] as string)).length,
    );

    expectEnvelope((await admin('/admin/audit?limit=501')).body, 'validation_failed');
    expectEnvelope((await admin('/admin/audit?cursor=bm9wZQ')).body, 'invalid_cursor');
    expect((await adminFetch(`${gateway.url}/admin/audit`, key)).status).toBe(403);
  });
});

describe('AUDIT_SEAL_INTERVAL_MS', () => {
  it('accepts 10-60000 ms and names the variable otherwise', () => {
    expect(loadConfig({ AUDIT_SEAL_INTERVAL_MS: '250' }).auditSealIntervalMs).toBe(250);
    expect(loadConfig({}).auditSealIntervalMs).toBe(1000);
    for (const bad of ['5', '60001', 'soon']) {
      expect(() => loadConfig({ AUDIT_SEAL_INTERVAL_MS: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ AUDIT_SEAL_INTERVAL_MS: '0' })).toThrow(/AUDIT_SEAL_INTERVAL_MS must be/);
  });
});

describe('append-only', () => {
  it('refuses UPDATE, DELETE and TRUNCATE of audit rows and chain entries', async () => {
    await sealedByTheGateway();
    const entry = await middleEntry();
    const attempts = [
      gateway.knex('audit_events').where({ id: entry.event_id }).update({ outcome: 'succeeded' }),
      gateway.knex('audit_events').where({ id: entry.event_id }).delete(),
      gateway.knex.raw('truncate audit_events cascade'),
      gateway
        .knex('audit_chain')
        .where({ seq: entry.seq })
        .update({ hash: '0'.repeat(64) }),
      gateway.knex('audit_chain').where({ seq: entry.seq }).delete(),
      gateway.knex.raw('truncate audit_chain'),
    ];
    for (const attempt of attempts) await expect(attempt).rejects.toThrow(/append-only/);
    expect(await verify()).toMatchObject({ ok: true });
  });
});

describe('tampering', () => {
  it('names the seq of a row changed after sealing', async () => {
    await sealedByTheGateway();
    const entry = await middleEntry();
    const original = await gateway.knex('audit_events').where({ id: entry.event_id }).first('details');
    await bypassingTriggers((trx) =>
      trx.raw(`update audit_events set details = details || '{"outcome_note":"edited"}' where id = ?`, [
        entry.event_id,
      ]),
    );
    const result = await verify();
    expect(result.ok).toBe(false);
    expect(result.first_bad).toMatchObject({
      seq: entry.seq,
      reason: 'hash_mismatch',
      audit_id: entry.audit_id,
    });

    await bypassingTriggers((trx) =>
      trx('audit_events')
        .where({ id: entry.event_id })
        .update({ details: JSON.stringify(original.details) }),
    );
    expect(await verify()).toMatchObject({ ok: true, first_bad: null });
  });

  it('reports a chain entry that no longer continues the one before it', async () => {
    await sealedByTheGateway();
    const entry = await middleEntry();
    const { prev_hash: original } = await gateway
      .knex('audit_chain')
      .where({ seq: entry.seq })
      .first('prev_hash');
    await bypassingTriggers((trx) =>
      trx('audit_chain')
        .where({ seq: entry.seq })
        .update({ prev_hash: 'f'.repeat(64) }),
    );
    expect((await verify()).first_bad).toMatchObject({ seq: entry.seq, reason: 'prev_hash_mismatch' });
    await bypassingTriggers((trx) =>
      trx('audit_chain').where({ seq: entry.seq }).update({ prev_hash: original }),
    );
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('reports the gap when a middle row and its chain entry are deleted', async () => {
    await sealedByTheGateway();
    const entry = await middleEntry();
    await bypassingTriggers(async (trx) => {
      await trx.raw('create table tamper_chain as select * from audit_chain where seq = ?', [entry.seq]);
      await trx.raw('create table tamper_events as select * from audit_events where id = ?', [
        entry.event_id,
      ]);
      await trx('audit_chain').where({ seq: entry.seq }).delete();
      await trx('audit_events').where({ id: entry.event_id }).delete();
    });
    const result = await verify();
    expect(result).toMatchObject({ ok: false, first_bad: { seq: entry.seq, reason: 'missing_seq' } });
    expect(result.first_bad?.message).toMatch(/deleted/);

    // Only the audit row gone (the chain entry still points at it).
    await bypassingTriggers((trx) => trx.raw('insert into audit_chain select * from tamper_chain'));
    expect((await verify()).first_bad).toMatchObject({ seq: entry.seq, reason: 'row_missing' });

    await bypassingTriggers(async (trx) => {
      await trx.raw('insert into audit_events select * from tamper_events');
      await trx.raw('drop table tamper_chain, tamper_events');
    });
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('detects a cut-off tail against an anchor recorded earlier', async () => {
    await readInvoke();
    await sealedByTheGateway();
    const { head } = await verify();
    if (head === null) throw new Error('the chain has a head by now');
    const anchor = `?anchor_seq=${head.seq}&anchor_hash=${head.hash}`;
    expect(await verify(anchor)).toMatchObject({ ok: true });

    await bypassingTriggers(async (trx) => {
      await trx.raw('create table tamper_tail as select * from audit_chain where seq = ?', [head.seq]);
      await trx('audit_chain').where({ seq: head.seq }).delete();
    });
    // Without the anchor a cut tail looks like a shorter, intact chain; the anchor tells.
    const shortened = await verify();
    expect(shortened.head?.seq).toBe(head.seq - 1);
    const cut = await verify(anchor);
    expect(cut).toMatchObject({ ok: false, first_bad: { seq: head.seq, reason: 'anchor_mismatch' } });

    await bypassingTriggers(async (trx) => {
      await trx.raw('insert into audit_chain select * from tamper_tail');
      await trx.raw('drop table tamper_tail');
    });
    expect(await verify(anchor)).toMatchObject({ ok: true });
  });
});

describe('under concurrency', () => {
  it('100 concurrent audited requests end in a gapless chain that verifies', async () => {
    // With PostgreSQL, a second gateway on the same database seals too: the advisory lock serializes them.
    const second = gateway.environment.usesPostgres
      ? await startGateway(loadConfig({ ...gateway.environment.env, AUDIT_SEAL_INTERVAL_MS: '20' }))
      : undefined;
    try {
      const urls = [gateway.url, second?.url ?? gateway.url];
      // This installation's rows only: the gateway may audit other things meanwhile (its own start).
      const rowsOfTheInstallation = async () =>
        Number(
          (
            await gateway
              .knex('audit_events')
              .where({ actor: `installation:${installationId}` })
              .count('* as n')
              .first()
          )?.n,
        );
      const before = await rowsOfTheInstallation();
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          fetch(`${urls[index % 2]}/mcp/invoke`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
            body: JSON.stringify({ id: 'core.org.current.get', params: {} }),
          }).then((response) => response.status),
        ),
      );
      expect(answers.every((status) => status === 200)).toBe(true);
      const result = await sealedByTheGateway();
      const total = Number((await gateway.knex('audit_events').count('* as n').first())?.n);
      // One audit row per read invoke: its outcome, carrying the chain's decisions (issue 31).
      expect(await rowsOfTheInstallation()).toBe(before + 100);
      expect(result).toMatchObject({ ok: true, unsealed: 0, sealed: total });
      const seqs = (await gateway.knex('audit_chain').orderBy('seq').pluck('seq')).map(Number);
      expect(seqs).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    } finally {
      await second?.close();
    }
  }, 60_000);
});
