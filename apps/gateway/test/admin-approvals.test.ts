import { beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from './helpers/access-client.js';
import { adminFetch } from './helpers/admin-fixtures.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

// A high-risk test capability: every run needs an operator approval.
let runs = 0;
const vault = demoCapability<{ door?: string }, { opened: string }>(
  {
    id: 'demo.vault.open',
    risk_level: 'high',
    input_schema: { type: 'object', properties: { door: { type: 'string' } }, additionalProperties: false },
  },
  async (input) => {
    runs += 1;
    return { opened: input.door ?? 'main' };
  },
);
const gateway = useGateway(withCapabilities(vault));

let key: string;
let organizationId: string;
beforeAll(async () => {
  ({ key, organizationId } = await approvedInstallation(gateway));
});

const invoke = (body: unknown): Promise<Answer> =>
  gateway.client.post('/mcp/invoke', body, { idem: null, key });
const admin = (path: string, body?: unknown) =>
  adminFetch(`${gateway.url}${path}`, gateway.operatorKey, body === undefined ? {} : { body });

async function pending(door: string) {
  const answer = await invoke({ id: 'demo.vault.open', params: { door } });
  expect(answer.json.status).toBe('pending_approval');
  return answer.json.approval as { approval_id: string; approval_token: string };
}

describe('approval dedupe', () => {
  it('answers a repeated invoke of the same pending run with the same approval and a fresh token', async () => {
    const first = await pending('dedupe');
    const second = await pending('dedupe');
    expect(second.approval_id).toBe(first.approval_id);
    expect(second.approval_token).not.toBe(first.approval_token);
    const rows = await gateway.knex('approvals').where({ capability_id: 'demo.vault.open' }).count('* as n');
    const other = await pending('other-door');
    expect(other.approval_id).not.toBe(first.approval_id);
    const after = await gateway.knex('approvals').where({ capability_id: 'demo.vault.open' }).count('* as n');
    expect(Number(after[0]?.n)).toBe(Number(rows[0]?.n) + 1);
    // Only the newest token is bound to the approval now.
    await admin(`/admin/approvals/${first.approval_id}/approve`, {});
    const stale = await invoke({
      id: 'demo.vault.open',
      params: { door: 'dedupe' },
      approval_token: first.approval_token,
    });
    expect(stale.status).toBe(403);
    const fresh = await invoke({
      id: 'demo.vault.open',
      params: { door: 'dedupe' },
      approval_token: second.approval_token,
    });
    expect(fresh.json).toMatchObject({ status: 'succeeded', result: { opened: 'dedupe' } });
  });
});

describe('approval dedupe under concurrency', () => {
  it('concurrent first invokes of the same run end with one approval row', async () => {
    const count = async () => Number((await gateway.knex('approvals').count('* as n').first())?.n ?? 0);
    const before = await count();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => invoke({ id: 'demo.vault.open', params: { door: 'race' } })),
    );
    expect(answers.map((answer) => answer.json.status)).toEqual(Array(6).fill('pending_approval'));
    expect(new Set(answers.map((answer) => answer.json.approval.approval_id)).size).toBe(1);
    expect(await count()).toBe(before + 1);
  });
});

describe('admin approvals', () => {
  it('lists pending approvals without any token or hash, filters by organization and status', async () => {
    const approval = await pending('list');
    const list = await admin(`/admin/approvals?organization=${organizationId}`);
    expect(list.status).toBe(200);
    const approvals = list.body.approvals as Record<string, unknown>[];
    const listed = approvals.find((a) => a.approval_id === approval.approval_id);
    expect(listed).toMatchObject({
      status: 'pending',
      organization_id: organizationId,
      capability_id: 'demo.vault.open',
      params_hash: expect.any(String),
    });
    expect(JSON.stringify(list.body)).not.toMatch(/token|agw_ap_/);
    const show = await admin(`/admin/approvals/${approval.approval_id}`);
    expect(show.body.approval).toMatchObject({ approval_id: approval.approval_id, status: 'pending' });
    expect(JSON.stringify(show.body)).not.toMatch(/token/);
    const otherOrg = await admin('/admin/approvals?organization=00000000-0000-4000-8000-000000000000');
    expect(otherOrg.body.approvals).toEqual([]);
    const approved = await admin('/admin/approvals?status=approved');
    expect(
      (approved.body.approvals as unknown[]).every((a) => (a as { status: string }).status === 'approved'),
    ).toBe(true);
  });

  it('approves once (a repeat is changed:false), audits it, and the token then runs exactly once', async () => {
    const approval = await pending('approve');
    const decided = await admin(`/admin/approvals/${approval.approval_id}/approve`, {});
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({
      changed: true,
      previous_status: 'pending',
      approval: { status: 'approved', decided_at: expect.any(String) },
      audit_id: expect.any(String),
    });
    const audit = await gateway.knex('audit_events').where({ audit_id: decided.body.audit_id }).first();
    expect(audit).toMatchObject({
      action: 'approval.approve',
      details: { approval_id: approval.approval_id },
    });
    const again = await admin(`/admin/approvals/${approval.approval_id}/approve`, {});
    expect(again.body).toMatchObject({ changed: false, previous_status: 'approved' });
    const before = runs;
    const body = {
      id: 'demo.vault.open',
      params: { door: 'approve' },
      approval_token: approval.approval_token,
    };
    expect((await invoke(body)).json).toMatchObject({ status: 'succeeded' });
    expect((await invoke(body)).status).toBe(403);
    expect(runs).toBe(before + 1);
    const shown = await admin(`/admin/approvals/${approval.approval_id}`);
    expect((shown.body.approval as { consumed_at: string | null }).consumed_at).not.toBeNull();
  });

  it('denies with a reason (audited); the token is then 403 and approving is 409', async () => {
    const approval = await pending('deny');
    const denied = await admin(`/admin/approvals/${approval.approval_id}/deny`, { reason: 'not today' });
    expect(denied.body).toMatchObject({ changed: true, reason: 'not today', approval: { status: 'denied' } });
    const audit = await gateway.knex('audit_events').where({ audit_id: denied.body.audit_id }).first();
    expect(audit).toMatchObject({ action: 'approval.deny', details: { reason: 'not today' } });
    const refused = await invoke({
      id: 'demo.vault.open',
      params: { door: 'deny' },
      approval_token: approval.approval_token,
    });
    expect(refused.status).toBe(403);
    expectEnvelope(refused.json, 'approval_invalid');
    const flip = await admin(`/admin/approvals/${approval.approval_id}/approve`, {});
    expect(flip.status).toBe(409);
    expectEnvelope(flip.body, 'conflict');
    // The body is optional: a bare POST (no body at all) denies too, and a repeat says changed:false.
    const bare = await fetch(`${gateway.url}/admin/approvals/${approval.approval_id}/deny`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gateway.operatorKey}` },
    });
    expect(bare.status).toBe(200);
    expect(await bare.json()).toMatchObject({ changed: false, previous_status: 'denied' });
  });

  it('refuses to approve an expired approval with a clear 409, and lists it as expired', async () => {
    const approval = await pending('expired');
    await gateway
      .knex('approvals')
      .where({ approval_id: approval.approval_id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const answer = await admin(`/admin/approvals/${approval.approval_id}/approve`, {});
    expect(answer.status).toBe(409);
    expect(expectEnvelope(answer.body, 'conflict').message).toMatch(/expired/);
    const expired = await admin('/admin/approvals?status=expired');
    expect((expired.body.approvals as { approval_id: string }[]).map((a) => a.approval_id)).toContain(
      approval.approval_id,
    );
    const pendingList = await admin('/admin/approvals');
    expect((pendingList.body.approvals as { approval_id: string }[]).map((a) => a.approval_id)).not.toContain(
      approval.approval_id,
    );
  });

  it('answers unknown ids 404, bad filters 400 with schema_pointer, and no operator key 401', async () => {
    const unknown = await admin('/admin/approvals/00000000-0000-4000-8000-000000000000/approve', {});
    expect(unknown.status).toBe(404);
    expectEnvelope(unknown.body, 'not_found');
    expect((await admin('/admin/approvals/not-a-uuid')).status).toBe(404);
    const bad = await admin('/admin/approvals?status=maybe');
    expect(bad.status).toBe(400);
    expect(expectEnvelope(bad.body, 'validation_failed').schema_pointer).toBe('/status');
    const badReason = await admin('/admin/approvals/00000000-0000-4000-8000-000000000000/deny', {
      reason: '',
    });
    expect(badReason.status).toBe(400);
    expect((await adminFetch(`${gateway.url}/admin/approvals`, undefined)).status).toBe(401);
    expect((await adminFetch(`${gateway.url}/admin/approvals`, key)).status).toBe(403);
  });
});
