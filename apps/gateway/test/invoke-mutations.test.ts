import { readWalletSnapshot } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from './helpers/access-client.js';
import { demoCapability, demoStamp, demoVault, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';
import { storedKeyFor } from './helpers/idempotency-hash.js';

const broken = demoCapability({ id: 'demo.broken.read', cost_credits: '0.1' }, async (): Promise<never> => {
  throw new Error('handler bug: secret detail');
});
let flakyFailures = 1;
const flaky = demoCapability(
  { ...demoStamp.contract, id: 'demo.flaky.create', cost_credits: '0' },
  async () => {
    if (flakyFailures > 0) {
      flakyFailures -= 1;
      throw new Error('transient');
    }
    return { done: true };
  },
);

const gateway = useGateway(withCapabilities(demoStamp, demoVault, broken, flaky));
let key: string;
let organizationId: string;

beforeAll(async () => {
  ({ key, organizationId } = await approvedInstallation(gateway, '1.2'));
});

async function invoke(body: unknown): Promise<Answer> {
  const answer = await gateway.client.post('/mcp/invoke', body, { idem: null, key });
  expectSchema(answer.status === 200 ? 'InvokeResponse' : 'ErrorEnvelope', answer.json);
  return answer;
}

async function balance(): Promise<string> {
  const snapshot = await readWalletSnapshot(gateway.knex, organizationId, new Date());
  return Number(snapshot.balance_credits).toFixed(2);
}

describe('mutating invoke', () => {
  it('needs an idempotency_key', async () => {
    const answer = await invoke({ id: 'demo.stamp.create', params: { label: 'a' } });
    expect(answer.status).toBe(400);
    expectEnvelope(answer.json, 'idempotency_key_required');
  });

  it('runs and charges once per key; a replay is identical plus replayed: true', async () => {
    const body = {
      id: 'demo.stamp.create',
      params: { label: 'first' },
      idempotency_key: 'stamp-key-000000001',
    };
    const first = await invoke(body);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      status: 'succeeded',
      result: { stamped: 'first' },
      cost: { credits: '0.5' },
    });
    expect(await balance()).toBe('0.70');
    const ledger = await gateway.knex('wallet_ledger').where({ organization_id: organizationId });
    expect(ledger).toHaveLength(1);
    // The run is audited in one row, the guard chain's record its answer names, under the key's hash.
    const keyHash = storedKeyFor(gateway.dataDir, 'stamp-key-000000001').slice(0, 16);
    const executed = await gateway
      .knex('audit_events')
      .whereRaw("details->>'idempotency_key_hash' = ?", [keyHash]);
    expect(executed).toHaveLength(1);
    expect(executed[0]).toMatchObject({
      audit_id: first.json.audit_id,
      action: 'capability.invoke',
      outcome: 'succeeded',
      http_status: 200,
    });
    // The audit keeps a prefix of the key's keyed hash, never the key (issue 12, finding 2).
    expect(JSON.stringify(executed[0].details)).not.toContain('stamp-key-000000001');

    const replay = await invoke(body);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual({ ...first.json, replayed: true });
    // Byte for byte the first answer, with the mark appended to it.
    expect(replay.text).toBe(`${first.text.slice(0, -1)},"replayed":true}`);
    expect(await balance()).toBe('0.70');

    const reused = await invoke({ ...body, params: { label: 'other' } });
    expect(reused.status).toBe(409);
    expectEnvelope(reused.json, 'idempotency_key_reused');
  });

  it('refuses with 403 budget_exceeded naming the balance when the estimate is above it', async () => {
    await invoke({ id: 'demo.stamp.create', params: { label: 'b' }, idempotency_key: 'stamp-key-000000002' });
    expect(await balance()).toBe('0.20');
    const answer = await invoke({
      id: 'demo.stamp.create',
      params: { label: 'c' },
      idempotency_key: 'stamp-key-000000003',
    });
    expect(answer.status).toBe(403);
    expectEnvelope(answer.json, 'budget_exceeded');
    expect(answer.json.error.details[0]).toMatchObject({ cap: 'balance', limit_credits: '0.2' });
    expect(await balance()).toBe('0.20');
  });
});

describe('a failing handler', () => {
  it('is answered 500 without internals, audited as failed and not charged', async () => {
    const before = await balance();
    const answer = await invoke({ id: 'demo.broken.read', params: {} });
    expect(answer.status).toBe(500);
    expectEnvelope(answer.json, 'internal_error');
    expect(answer.text).not.toContain('secret detail');
    const row = await gateway.knex('audit_events').where({ audit_id: answer.json.error.audit_id }).first();
    expect(row).toMatchObject({ outcome: 'failed', action: 'capability.invoke', http_status: 500 });
    expect(await balance()).toBe(before);
  });
});

describe('a failing mutation', () => {
  it('rolls back and releases its key, so the same key may be retried', async () => {
    const body = { id: 'demo.flaky.create', params: { label: 'x' }, idempotency_key: 'flaky-key-0000000001' };
    const failed = await invoke(body);
    expect(failed.status).toBe(500);
    const retried = await invoke(body);
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ status: 'succeeded', result: { done: true } });
    expect(retried.json).not.toHaveProperty('replayed');
  });
});

describe('high risk', () => {
  it('answers pending_approval with an approval object and stores the approval', async () => {
    const answer = await invoke({ id: 'demo.vault.open', params: {} });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      status: 'pending_approval',
      capability_id: 'demo.vault.open',
      approval: {
        approval_id: expect.any(String),
        approval_token: expect.stringMatching(/^agw_ap_/),
        expires_at: expect.any(String),
        reason: expect.stringMatching(/risk high/),
      },
    });
    expect(answer.json).not.toHaveProperty('result');
    const stored = await gateway
      .knex('approvals')
      .where({ approval_id: answer.json.approval.approval_id })
      .first();
    expect(stored).toMatchObject({ status: 'pending', capability_id: 'demo.vault.open' });
    expect(stored.token_hash).not.toBe(answer.json.approval.approval_token);
  });

  it('runs once with the token after an operator approves it, then refuses the used token', async () => {
    const pending = await invoke({ id: 'demo.vault.open', params: {} });
    await gateway
      .knex('approvals')
      .where({ approval_id: pending.json.approval.approval_id })
      .update({ status: 'approved' });
    const body = { id: 'demo.vault.open', params: {}, approval_token: pending.json.approval.approval_token };
    const approved = await invoke(body);
    expect(approved.json).toMatchObject({ status: 'succeeded', result: { opened: true } });
    const again = await invoke(body);
    expect(again.status).toBe(403);
    expectEnvelope(again.json, 'approval_invalid');
  });
});
