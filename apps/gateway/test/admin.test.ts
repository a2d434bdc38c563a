// The operator admin API over real HTTP: who may call it (operator keys only), the installation
// queue (list/show/approve/block with the code preconditions), organizations, and the audit rows every
// operator action writes. Rows are inserted directly; the onboarding endpoints are tested elsewhere.
// Not covered here: access, suppressions and operator keys (admin-settings.test.ts), the operator.key
// file (admin-bootstrap.test.ts).
import { describe, expect, it } from 'vitest';
import { adminFetch, insertInstallation, insertKey } from './helpers/admin-fixtures.js';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { captureLog } from './helpers/log-capture.js';

const log = captureLog();
const gateway = useGateway({ logger: log.logger });

const admin = (
  path: string,
  init: { method?: 'GET' | 'POST'; body?: unknown } = {},
  token = gateway.operatorKey,
) => adminFetch(`${gateway.url}${path}`, token, init);

describe('admin API authentication', () => {
  it('answers 401 unauthenticated without a key, and for another scheme', async () => {
    const none = await adminFetch(`${gateway.url}/admin/installations`, undefined);
    expect(none.status).toBe(401);
    expectEnvelope(none.body, 'unauthenticated');
    const basic = await fetch(`${gateway.url}/admin/installations`, {
      headers: { Authorization: 'Basic YTpi' },
    });
    expect(basic.status).toBe(401);
    expectEnvelope(await basic.json(), 'unauthenticated');
  });

  it('answers 401 invalid_api_key for a malformed key, a wrong secret and an unknown prefix alike', async () => {
    const wrongSecret = `${gateway.operatorKey.slice(0, -8)}AAAAAAAA`;
    const unknown = await insertKey(gateway.knex, 'operator').then(async (token) => {
      await gateway
        .knex('api_keys')
        .where({ prefix: token.slice(7, 19) })
        .delete();
      return token;
    });
    for (const token of ['garbage', 'agw_ak_short.secret', wrongSecret, unknown]) {
      const answer = await admin('/admin/installations', {}, token);
      expect(answer.status).toBe(401);
      const error = expectEnvelope(answer.body, 'invalid_api_key');
      expect(error.message).toBe('The API key is not valid.');
    }
  });

  it('answers 403 forbidden to a valid installation or bootstrap key', async () => {
    const { installationId } = await insertInstallation(gateway.knex, { ownerVerified: true });
    for (const token of [
      await insertKey(gateway.knex, 'installation', { installationId }),
      await insertKey(gateway.knex, 'bootstrap'),
    ]) {
      const answer = await admin('/admin/installations', {}, token);
      expect(answer.status).toBe(403);
      expectEnvelope(answer.body, 'forbidden');
      const approve = await admin(
        `/admin/installations/${installationId}/approve`,
        { method: 'POST' },
        token,
      );
      expect(approve.status).toBe(403);
    }
    const row = await gateway.knex('installations').where({ id: installationId }).first();
    expect(row.operator_approval_status).toBe('pending');
  });

  it('answers 401 api_key_revoked / api_key_expired to a revoked or expired operator key', async () => {
    const revoked = await admin(
      '/admin/installations',
      {},
      await insertKey(gateway.knex, 'operator', { revoked: true }),
    );
    expect(revoked.status).toBe(401);
    expectEnvelope(revoked.body, 'api_key_revoked');
    const expired = await admin(
      '/admin/installations',
      {},
      await insertKey(gateway.knex, 'operator', { expired: true }),
    );
    expect(expired.status).toBe(401);
    expectEnvelope(expired.body, 'api_key_expired');
  });

  it('accepts a valid operator key and records its last use', async () => {
    const answer = await admin('/admin/installations');
    expect(answer.status).toBe(200);
    expect(Array.isArray(answer.body.installations)).toBe(true);
    const row = await gateway
      .knex('api_keys')
      .where({ prefix: gateway.operatorKey.slice(7, 19) })
      .first();
    expect(row.last_used_at).not.toBeNull();
  });

  it('appears in no discovery document', async () => {
    for (const path of ['/openapi.json', '/capabilities', '/llms.txt', '/mcp/manifest', '/mcp/tools']) {
      const text = await (await fetch(`${gateway.url}${path}`)).text();
      expect(text, path).not.toContain('/admin');
    }
  });
});

describe('installations', () => {
  it('lists with organization, app, verification and age, filtered by status', async () => {
    const pending = await insertInstallation(gateway.knex, { ownerVerified: false, agentVerified: false });
    const approved = await insertInstallation(gateway.knex, { ownerVerified: true, status: 'approved' });
    const all = await admin('/admin/installations');
    const ids = (all.body.installations as Array<{ id: string }>).map((item) => item.id);
    expect(ids).toEqual(expect.arrayContaining([pending.installationId, approved.installationId]));

    const onlyPending = await admin('/admin/installations?status=pending');
    const items = onlyPending.body.installations as Array<Record<string, unknown>>;
    expect(items.every((item) => item.operator_approval_status === 'pending')).toBe(true);
    const item = items.find((entry) => entry.id === pending.installationId);
    expect(item).toMatchObject({
      organization: { id: pending.organizationId, is_active: true },
      app: { id: pending.appId, slug: pending.slug },
      owner_verified: false,
      agent_email_verification_status: 'pending',
      ready_for_approval: false,
      operator_approved_at: null,
    });
    expect(item?.age_seconds).toEqual(expect.any(Number));
    expect(items.some((entry) => entry.id === approved.installationId)).toBe(false);
  });

  it('rejects an unknown status filter with 400 validation_failed', async () => {
    const answer = await admin('/admin/installations?status=maybe');
    expect(answer.status).toBe(400);
    const error = expectEnvelope(answer.body, 'validation_failed');
    expect(error.schema_pointer).toBe('/status');
  });

  it('shows one installation, and 404 for an unknown or malformed id', async () => {
    const { installationId } = await insertInstallation(gateway.knex, { ownerVerified: true });
    const shown = await admin(`/admin/installations/${installationId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.installation).toMatchObject({
      id: installationId,
      agent_email_verification_status: 'not_required',
    });
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const missing = await admin(`/admin/installations/${id}`);
      expect(missing.status).toBe(404);
      expectEnvelope(missing.body, 'not_found');
    }
  });

  it.each([
    ['the owner code is unclaimed', { ownerVerified: false }, /owner has not redeemed/],
    ['the agent mailbox is unverified', { ownerVerified: true, agentVerified: false }, /agent mailbox code/],
    [
      'both codes are missing',
      { ownerVerified: false, agentVerified: false },
      /owner .* and the agent mailbox/,
    ],
  ])('refuses approval with 409 conflict while %s', async (_case, setup, message) => {
    const { installationId } = await insertInstallation(gateway.knex, setup);
    const answer = await admin(`/admin/installations/${installationId}/approve`, { method: 'POST' });
    expect(answer.status).toBe(409);
    const error = expectEnvelope(answer.body, 'conflict');
    expect(error.message).toMatch(message);
    expect(error.hint).toMatch(/owner code is claimed/);
    const row = await gateway.knex('installations').where({ id: installationId }).first();
    expect(row).toMatchObject({ operator_approval_status: 'pending', operator_approved_at: null });
  });

  it.each([
    ['without an agent mailbox', { ownerVerified: true }],
    ['with a verified agent mailbox', { ownerVerified: true, agentVerified: true }],
  ])('approves %s, records who decided, and audits it', async (_case, setup) => {
    const { installationId, organizationId } = await insertInstallation(gateway.knex, setup);
    const answer = await admin(`/admin/installations/${installationId}/approve`, { method: 'POST' });
    expect(answer.status).toBe(200);
    const prefix = gateway.operatorKey.slice(7, 19);
    expect(answer.body).toMatchObject({
      changed: true,
      previous_status: 'pending',
      installation: {
        id: installationId,
        operator_approval_status: 'approved',
        operator_decided_by: `operator:${prefix}`,
      },
    });
    const row = await gateway.knex('installations').where({ id: installationId }).first();
    expect(row.operator_approval_status).toBe('approved');
    expect(row.operator_approved_at).not.toBeNull();
    expect(row.operator_decided_at).not.toBeNull();
    const audit = await gateway.knex('audit_events').where({ audit_id: answer.body.audit_id }).first();
    expect(audit).toMatchObject({
      actor: `operator:${prefix}`,
      action: 'installation.approve',
      outcome: 'succeeded',
      http_status: 200,
      details: {
        installation_id: installationId,
        organization_id: organizationId,
        status: 'approved',
        changed: true,
      },
    });
    expect(JSON.stringify(audit)).not.toContain(gateway.operatorKey.split('.')[1]);
  });

  it('approving twice changes nothing the second time; block then clears the approval', async () => {
    const { installationId } = await insertInstallation(gateway.knex, { ownerVerified: true });
    const first = await admin(`/admin/installations/${installationId}/approve`, { method: 'POST' });
    const approvedAt = (first.body.installation as { operator_approved_at: string }).operator_approved_at;
    const second = await admin(`/admin/installations/${installationId}/approve`, { method: 'POST' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ changed: false, installation: { operator_approved_at: approvedAt } });

    const blocked = await admin(`/admin/installations/${installationId}/block`, { method: 'POST' });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({
      changed: true,
      previous_status: 'approved',
      installation: { operator_approval_status: 'blocked', operator_approved_at: null },
    });
    const audit = await gateway.knex('audit_events').where({ audit_id: blocked.body.audit_id }).first();
    expect(audit).toMatchObject({ action: 'installation.block', details: { previous_status: 'approved' } });
  });

  it('blocks a pending installation whatever its codes', async () => {
    const { installationId } = await insertInstallation(gateway.knex, {
      ownerVerified: false,
      agentVerified: false,
    });
    const answer = await admin(`/admin/installations/${installationId}/block`, { method: 'POST' });
    expect(answer.status).toBe(200);
    const row = await gateway.knex('installations').where({ id: installationId }).first();
    expect(row.operator_approval_status).toBe('blocked');
  });

  it('answers 404 to approving an installation that does not exist, and audits the failure', async () => {
    const answer = await admin('/admin/installations/00000000-0000-4000-8000-000000000000/approve', {
      method: 'POST',
    });
    expect(answer.status).toBe(404);
    const error = expectEnvelope(answer.body, 'not_found');
    const audit = await gateway.knex('audit_events').where({ audit_id: error.audit_id }).first();
    expect(audit).toMatchObject({ outcome: 'failed', http_status: 404 });
  });
});

describe('organizations', () => {
  it('deactivates and activates, each change audited, repeats reported unchanged', async () => {
    const { organizationId } = await insertInstallation(gateway.knex, { ownerVerified: true });
    const off = await admin(`/admin/organizations/${organizationId}/deactivate`, { method: 'POST' });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ changed: true, organization: { id: organizationId, is_active: false } });
    expect((await gateway.knex('organizations').where({ id: organizationId }).first()).is_active).toBe(false);
    const again = await admin(`/admin/organizations/${organizationId}/deactivate`, { method: 'POST' });
    expect(again.body).toMatchObject({ changed: false });
    const on = await admin(`/admin/organizations/${organizationId}/activate`, { method: 'POST' });
    expect(on.body).toMatchObject({ changed: true, organization: { is_active: true } });
    const actions = await gateway
      .knex('audit_events')
      .whereIn('audit_id', [String(off.body.audit_id), String(on.body.audit_id)])
      .orderBy('occurred_at')
      .pluck('action');
    expect(actions.sort()).toEqual(['organization.activate', 'organization.deactivate']);
  });

  it('answers 404 for an unknown organization', async () => {
    const answer = await admin('/admin/organizations/00000000-0000-4000-8000-000000000000/activate', {
      method: 'POST',
    });
    expect(answer.status).toBe(404);
    expectEnvelope(answer.body, 'not_found');
  });
});

describe('logs', () => {
  it('never contain the operator key secret', () => {
    expect(log.text()).not.toContain(gateway.operatorKey.split('.')[1]);
  });
});
