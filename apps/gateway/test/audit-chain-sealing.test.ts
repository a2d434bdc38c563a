// How the sealer finds the rows to chain (src/audit-chain/sealer.ts): by the transaction that wrote
// them, with no queue written beside each row; a gateway upgraded with rows still queued under the old
// scheme seals them first and its chain verifies; an open transaction holds back only its own rows.
import { randomUUID } from 'node:crypto';
import { runMigrations, sealAuditChain, verifyAuditChain } from '@agw/gateway';
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { gate } from './helpers/gate.js';
import { undoMigration, useMigratedDatabase } from './helpers/migrated-database.js';

// The migrations that replaced the seal queue, in order.
const SEAL_MIGRATIONS = ['20261202000000_audit_seal_by_transaction', '20261202010000_audit_seal_snapshot'];

const db = useMigratedDatabase();

// PGlite's now() has millisecond resolution, so rows inserted within one millisecond tie on occurred_at,
// and the legacy queue seals oldest first by (occurred_at, id): a tie went by the random id. Each test
// row gets a moment of its own, later than the one before.
let lastMoment = 0;

function auditRow(action: string) {
  lastMoment = Math.max(lastMoment + 1, Date.now());
  return {
    audit_id: randomUUID(),
    occurred_at: new Date(lastMoment),
    request_id: `req-${action}`,
    actor: 'anonymous',
    action,
    outcome: 'allowed',
    http_status: 200,
    details: JSON.stringify({ action }),
  };
}

async function insertRows(db: Knex | Knex.Transaction, actions: readonly string[]): Promise<void> {
  for (const action of actions) await db('audit_events').insert(auditRow(action));
}

/** The actions of the chain's entries from seq `from` on, in chain order. */
async function chainedActions(from: number): Promise<string[]> {
  return db
    .knex('audit_chain as c')
    .join('audit_events as e', 'e.id', 'c.event_id')
    .where('c.seq', '>=', from)
    .orderBy('c.seq')
    .pluck('e.action');
}

async function headSeq(): Promise<number> {
  const head = await db.knex('audit_chain').max('seq as seq').first();
  return Number(head?.seq ?? 0);
}

describe('sealing by transaction', () => {
  it('writes an audit row once: nothing is queued beside it, and the sealer still chains it', async () => {
    const from = (await headSeq()) + 1;
    await insertRows(db.knex, ['lean-1', 'lean-2']);
    expect(Number((await db.knex('audit_unsealed').count('* as n').first())?.n)).toBe(0);
    expect(await sealAuditChain(db.knex)).toBe(2);
    expect(await chainedActions(from)).toEqual(['lean-1', 'lean-2']);
    expect(await verifyAuditChain(db.knex)).toMatchObject({ ok: true, unsealed: 0, first_bad: null });
  });

  it('seals the rows an upgraded gateway still had queued first, then the new ones; the chain verifies', async () => {
    // Back to the queue of the old scheme: its trigger queues each new row in audit_unsealed.
    for (const name of [...SEAL_MIGRATIONS].reverse()) await undoMigration(db.knex, name);
    const from = (await headSeq()) + 1;
    await insertRows(db.knex, ['old-1', 'old-2', 'old-3']);
    expect(Number((await db.knex('audit_unsealed').count('* as n').first())?.n)).toBe(3);

    expect((await runMigrations(db.knex)).applied).toEqual(SEAL_MIGRATIONS);
    await insertRows(db.knex, ['new-1', 'new-2']);
    expect(await sealAuditChain(db.knex)).toBe(5);
    expect(await chainedActions(from)).toEqual(['old-1', 'old-2', 'old-3', 'new-1', 'new-2']);
    expect(Number((await db.knex('audit_unsealed').count('* as n').first())?.n)).toBe(0);
    expect(await verifyAuditChain(db.knex)).toMatchObject({ ok: true, unsealed: 0, first_bad: null });
  });

  it('after a batch cut at its limit (2 000 rows), seals each row once: the rows it chained are not chained again', async () => {
    const from = (await headSeq()) + 1;
    await db.knex.raw(
      `insert into audit_events (id, audit_id, request_id, actor, action, outcome, http_status, details)
       select gen_random_uuid(), gen_random_uuid()::text, 'req-bulk', 'anonymous', 'bulk', 'allowed', 200, '{}'::jsonb
         from generate_series(1, 2000)`,
    );
    // The first batch takes exactly its limit, so the mark stays behind the rows it chained.
    expect(await sealAuditChain(db.knex)).toBe(2000);
    await insertRows(db.knex, ['after-cut-1', 'after-cut-2']);
    expect(await sealAuditChain(db.knex)).toBe(2);
    const actions = await chainedActions(from);
    expect(actions.length).toBe(2002);
    expect(actions.slice(-2)).toEqual(['after-cut-1', 'after-cut-2']);
    expect(await verifyAuditChain(db.knex)).toMatchObject({ ok: true, unsealed: 0, first_bad: null });
    expect(await sealAuditChain(db.knex)).toBe(0);
  });

  it.runIf(process.env.DATABASE_URL)(
    'an open transaction holds back only its own rows, which are sealed once it commits',
    async () => {
      const from = (await headSeq()) + 1;
      const committing = gate();
      const inserted = gate();
      const slow = db.knex.transaction(async (trx) => {
        await insertRows(trx, ['slow']);
        inserted.open();
        await committing.opened;
      });
      await inserted.opened;
      await insertRows(db.knex, ['fast']);
      expect(await sealAuditChain(db.knex)).toBe(1);
      committing.open();
      await slow;
      expect(await sealAuditChain(db.knex)).toBe(1);
      expect(await chainedActions(from)).toEqual(['fast', 'slow']);
      expect(await verifyAuditChain(db.knex)).toMatchObject({ ok: true, unsealed: 0 });
    },
  );
});
