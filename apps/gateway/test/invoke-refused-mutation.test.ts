// A mutating handler runs without a savepoint: when it refuses after writing, the whole transaction
// rolls back (its writes with it) and the refusal is recorded afterwards — stored under the key,
// audited, not charged. A key whose charge an earlier run already made answers 409 and runs nothing.
import { createHash, randomUUID } from 'node:crypto';
import { CapabilityError, type Sql } from '@agw/capabilities';
import { readWalletSnapshot } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from './helpers/access-client.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { storedKeyFor } from './helpers/idempotency-hash.js';

/** The SQL port a handler kept past its run (label `keep…`). */
let kept: Sql | undefined;

// Writes a document row as the tenant, then refuses when asked to: the row must not survive.
const note = demoCapability<{ label: string }, { id: string }>(
  {
    id: 'demo.note.create',
    cost_credits: '0.5',
    mutating: true,
    input_schema: {
      type: 'object',
      properties: { label: { type: 'string', minLength: 1 } },
      required: ['label'],
      additionalProperties: false,
    },
  },
  async ({ label }, ctx) => {
    const id = randomUUID();
    const content = Buffer.from(label);
    await ctx.sql.query(
      `insert into documents
         (id, organization_id, installation_id, file_name, mime_type, size_bytes, sha256, content, created_at)
       values ($1, $2, $3, $4, 'text/plain', $5, $6, $7, now())`,
      [
        id,
        ctx.organizationId,
        ctx.installationId,
        `${label}.txt`,
        content.length,
        createHash('sha256').update(content).digest('hex'),
        content,
      ],
    );
    if (label.startsWith('keep')) kept = ctx.sql;
    if (label.startsWith('refuse')) throw new CapabilityError('conflict', 'This note conflicts.');
    // A result JSON cannot hold: rendering the answer throws after the handler's write.
    if (label.startsWith('bigint')) return { id, size: BigInt(content.length) } as unknown as { id: string };
    return { id };
  },
);

const gateway = useGateway(withCapabilities(note));
let key: string;
let organizationId: string;
let installationId: string;

beforeAll(async () => {
  ({ key, organizationId, installationId } = await approvedInstallation(gateway, '5'));
});

function invoke(label: string, idempotencyKey: string): Promise<Answer> {
  return gateway.client.post(
    '/mcp/invoke',
    { id: 'demo.note.create', params: { label }, idempotency_key: idempotencyKey },
    { idem: null, key },
  );
}

async function balance(): Promise<string> {
  return (await readWalletSnapshot(gateway.knex, organizationId, new Date())).balance_credits;
}

const notes = async (label: string) =>
  gateway.knex('documents').where({ organization_id: organizationId, file_name: `${label}.txt` });

describe('a mutating handler that refuses after writing', () => {
  it('leaves nothing of its writes, is stored and audited, and charges nothing', async () => {
    const before = await balance();
    const refused = await invoke('refuse-1', 'note-refuse-key-0001');
    expect(refused.status).toBe(409);
    expectEnvelope(refused.json, 'conflict');
    expect(await notes('refuse-1')).toHaveLength(0);
    expect(await balance()).toBe(before);
    // The handler ran, so its decision is stored: the same key replays it without running again.
    const replay = await invoke('refuse-1', 'note-refuse-key-0001');
    expect(replay.status).toBe(409);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual(refused.json);
    // Audited in one row, the one the envelope names: the chain's failed outcome with every guard's
    // decision; the replay adds its own row.
    const outcome = await gateway
      .knex('audit_events')
      .where({ audit_id: refused.json.error.audit_id })
      .first();
    expect(outcome).toMatchObject({ action: 'capability.invoke', outcome: 'failed', http_status: 409 });
    expect(outcome.details).toMatchObject({ target_id: 'demo.note.create', reason_code: 'conflict' });
    const rows = await gateway
      .knex('audit_events')
      .whereRaw("details->>'idempotency_key_hash' = ?", [outcome.details.idempotency_key_hash])
      .orderBy('occurred_at');
    expect(rows.map((row) => [row.action, row.outcome])).toEqual([
      ['capability.invoke', 'failed'],
      ['capability.invoke.idempotent', 'replayed'],
    ]);
  });

  it('a success with the same handler keeps its row and is charged once', async () => {
    const before = Number(await balance());
    const answer = await invoke('kept', 'note-kept-key-00001');
    expect(answer.status).toBe(200);
    expect(await notes('kept')).toHaveLength(1);
    expect(Number(await balance())).toBeCloseTo(before - 0.5);
  });
});

describe('a result that cannot be rendered', () => {
  it('rolls back, answers in the envelope, and the next invoke runs on a clean connection', async () => {
    const before = await balance();
    const failed = await invoke('bigint-1', 'note-bigint-key-0001');
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.json.error).toBeDefined();
    expect(await notes('bigint-1')).toHaveLength(0);
    expect(await balance()).toBe(before);
    // The same key runs again (the claim was released), and other invokes commit as before.
    for (let round = 0; round < 4; round += 1) {
      expect((await invoke(`after-${round}`, `note-after-key-000${round}`)).status).toBe(200);
      expect(await notes(`after-${round}`)).toHaveLength(1);
    }
  });
});

describe('a handler that keeps its SQL port past its run', () => {
  it('cannot send on the connection once it went back to the pool', async () => {
    expect((await invoke('keep-1', 'note-keep-key-00001')).status).toBe(200);
    await expect(kept?.query('select 1')).rejects.toThrow(/went back to the pool/);
    expect((await invoke('after-keep', 'note-after-keep-01')).status).toBe(200);
    expect(await notes('after-keep')).toHaveLength(1);
  });
});

describe('a key whose charge was made by an earlier run', () => {
  it('answers 409 idempotency_key_reused, runs nothing and charges nothing', async () => {
    // As if the key had been used more than 24 h ago: its stored answer is gone, its charge is not.
    const idempotencyKey = 'note-charged-key-001';
    await gateway.knex('wallet_ledger').insert({
      organization_id: organizationId,
      amount: '0.5',
      kind: 'charge',
      idempotency_scope: `idempotency:${installationId}:${storedKeyFor(gateway.dataDir, idempotencyKey)}`,
      capability_id: 'demo.note.create',
    });
    const before = await balance();
    const answer = await invoke('charged', idempotencyKey);
    expect(answer.status).toBe(409);
    expectEnvelope(answer.json, 'idempotency_key_reused');
    expect(await notes('charged')).toHaveLength(0);
    expect(await balance()).toBe(before);
    // Nothing is stored under the key: the claim was released.
    const stored = await gateway
      .knex('idempotency_keys')
      .where({ idem_key: storedKeyFor(gateway.dataDir, idempotencyKey) });
    expect(stored).toHaveLength(0);
  });
});
