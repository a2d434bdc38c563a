// Issue 13, item 8: idempotency keeps only what ran. A mutating invoke refused by a guard before its
// handler ran is not stored under its idempotency key: once the operator funds the wallet, the same
// request with the same key runs — once, charged once. A handler's own decided error is stored.
import { describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

const gateway = useGateway();

const upload = (idempotencyKey: string, text = 'funded later') => ({
  id: 'documents.document.upload',
  params: {
    file_name: 'later.txt',
    mime_type: 'text/plain',
    content_base64: Buffer.from(text).toString('base64'),
  },
  idempotency_key: idempotencyKey,
});

describe('a refusal before the handler ran', () => {
  it('an empty wallet refuses (budget_exceeded, not stored); after the operator funds it the same key runs once', async () => {
    const { key, organizationId } = await approvedInstallation(gateway);
    const idem = `fund-between-${crypto.randomUUID()}`;
    const refused = await gateway.client.post('/mcp/invoke', upload(idem), { key, idem: null });
    expect(refused.status, refused.text).toBe(403);
    expectEnvelope(refused.json, 'budget_exceeded');
    // The refusal is audited although nothing was stored under the key.
    const audit = await gateway.knex('audit_events').where({ audit_id: refused.json.error.audit_id }).first();
    expect(audit).toBeDefined();

    const credit = await fetch(`${gateway.url}/admin/wallets/${organizationId}/credit`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gateway.operatorKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ amount: '1', memo: 'funded after a refusal' }),
    });
    expect(credit.status).toBe(201);

    const ran = await gateway.client.post('/mcp/invoke', upload(idem), { key, idem: null });
    expect(ran.status).toBe(200);
    expect(ran.json).toMatchObject({ status: 'succeeded', cost: { credits: '0.02' } });
    expect(ran.json.replayed).toBeUndefined();
    const replay = await gateway.client.post('/mcp/invoke', upload(idem), { key, idem: null });
    expect(replay.json).toMatchObject({ status: 'succeeded', replayed: true });

    const documents = await gateway.knex('documents').where({ organization_id: organizationId });
    expect(documents).toHaveLength(1);
    const charges = await gateway
      .knex('wallet_ledger')
      .where({ organization_id: organizationId, kind: 'charge' });
    expect(charges).toHaveLength(1);
  });

  it('a handler’s own decided error is stored: the same key replays it', async () => {
    const { key } = await approvedInstallation(gateway, '5');
    const idem = `handler-refusal-${crypto.randomUUID()}`;
    // Bytes that are not what mime_type declares: the handler refuses (validation_failed).
    const bad = {
      ...upload(idem),
      params: { ...upload(idem).params, file_name: 'x.pdf', mime_type: 'application/pdf' },
    };
    const first = await gateway.client.post('/mcp/invoke', bad, { key, idem: null });
    expectEnvelope(first.json, 'validation_failed');
    const second = await gateway.client.post('/mcp/invoke', bad, { key, idem: null });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
  });
});

describe('newcomer messages', () => {
  it('a mutating invoke without idempotency_key points at the body field, not a header', async () => {
    const { key } = await approvedInstallation(gateway, '5');
    const { idempotency_key: _omitted, ...body } = upload('unused-key-000000000');
    const answer = await gateway.client.post('/mcp/invoke', body, { key, idem: null });
    const envelope = expectEnvelope(answer.json, 'idempotency_key_required');
    expect(`${envelope.message} ${envelope.hint}`).not.toMatch(/header/i);
    expect(envelope.hint).toContain('"idempotency_key"');
  });
});
