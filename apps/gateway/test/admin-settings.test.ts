// The operator's settings over real HTTP: operator keys (create shows the token once, list never
// shows a secret, revoke stops the key, the last active key cannot be revoked), the access mode and
// invitations, and the mail suppression list — each mutation audited, each body validated.
// Not covered: installations and the auth matrix (admin.test.ts).
import { describe, expect, it } from 'vitest';
import { adminFetch } from './helpers/admin-fixtures.js';
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

const auditOf = (auditId: unknown) => gateway.knex('audit_events').where({ audit_id: auditId }).first();

describe('operator keys', () => {
  it('creates a key whose token works, shows it once, and stores only its hash', async () => {
    const created = await admin('/admin/operator-keys', { body: { label: 'alice' } });
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    const key = created.body.key as { prefix: string; status: string; label: string };
    expect(token).toMatch(/^agw_ak_[A-Za-z0-9]{12}\.[A-Za-z0-9]{38}$/);
    expect(key).toMatchObject({ prefix: token.slice(7, 19), status: 'active', label: 'alice' });
    expect((await admin('/admin/operator-keys', {}, token)).status).toBe(200);

    const listed = await admin('/admin/operator-keys');
    expect(JSON.stringify(listed.body)).not.toContain(token.split('.')[1]);
    expect(listed.body.operator_keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ prefix: key.prefix, label: 'alice', status: 'active' }),
      ]),
    );
    const row = await gateway.knex('api_keys').where({ prefix: key.prefix }).first();
    expect(row.kind).toBe('operator');
    expect(JSON.stringify(row)).not.toContain(token.split('.')[1]);
    const audit = await auditOf(created.body.audit_id);
    expect(audit).toMatchObject({ action: 'operator_key.create', details: { created_prefix: key.prefix } });
    expect(JSON.stringify(audit)).not.toContain(token.split('.')[1]);
  });

  it('validates the body: unknown members and empty labels are 400 validation_failed', async () => {
    for (const body of [{ label: '' }, { label: 'x', admin: true }, []]) {
      const answer = await admin('/admin/operator-keys', { body });
      expect(answer.status).toBe(400);
      expectEnvelope(answer.body, 'validation_failed');
    }
  });

  it('revokes a key, which then gets 401 api_key_revoked; a repeat keeps the first revocation time', async () => {
    const created = await admin('/admin/operator-keys', { body: {} });
    const token = created.body.token as string;
    const prefix = token.slice(7, 19);
    const revoked = await admin(`/admin/operator-keys/${prefix}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    const key = revoked.body.key as { status: string; revoked_at: string };
    expect(key.status).toBe('revoked');
    const denied = await admin('/admin/operator-keys', {}, token);
    expect(denied.status).toBe(401);
    expectEnvelope(denied.body, 'api_key_revoked');
    const again = await admin(`/admin/operator-keys/${prefix}/revoke`, { method: 'POST' });
    expect((again.body.key as { revoked_at: string }).revoked_at).toBe(key.revoked_at);
    expect(await auditOf(revoked.body.audit_id)).toMatchObject({ action: 'operator_key.revoke' });
  });

  it('answers 404 for an unknown prefix', async () => {
    const answer = await admin('/admin/operator-keys/AAAAAAAAAAAA/revoke', { method: 'POST' });
    expect(answer.status).toBe(404);
    expectEnvelope(answer.body, 'not_found');
  });

  it('refuses to revoke the last active operator key with 409 conflict', async () => {
    // Revoke every other key, then try the bootstrap key itself.
    const own = gateway.operatorKey.slice(7, 19);
    const listed = (await admin('/admin/operator-keys')).body.operator_keys as Array<{
      prefix: string;
      status: string;
    }>;
    for (const key of listed.filter((entry) => entry.status === 'active' && entry.prefix !== own)) {
      expect((await admin(`/admin/operator-keys/${key.prefix}/revoke`, { method: 'POST' })).status).toBe(200);
    }
    const answer = await admin(`/admin/operator-keys/${own}/revoke`, { method: 'POST' });
    expect(answer.status).toBe(409);
    const error = expectEnvelope(answer.body, 'conflict');
    expect(error.hint).toMatch(/Create another operator key first/);
    expect((await admin('/admin/operator-keys')).status).toBe(200);
  });
});

describe('access', () => {
  it('is open by default, switches to invite_only and back, each switch audited', async () => {
    expect((await admin('/admin/access')).body).toEqual({ mode: 'open' });
    const closed = await admin('/admin/access', { body: { mode: 'invite_only' } });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ mode: 'invite_only', previous_mode: 'open', changed: true });
    expect((await admin('/admin/access')).body).toEqual({ mode: 'invite_only' });
    const row = await gateway.knex('gateway_settings').where({ key: 'access_mode' }).first();
    expect(row.value).toBe('invite_only');
    expect(await auditOf(closed.body.audit_id)).toMatchObject({
      action: 'access.set_mode',
      details: { mode: 'invite_only', previous_mode: 'open' },
    });
    const opened = await admin('/admin/access', { body: { mode: 'open' } });
    expect(opened.body).toMatchObject({ mode: 'open', previous_mode: 'invite_only' });
  });

  it('rejects an unknown mode with 400 validation_failed pointing at /mode', async () => {
    const answer = await admin('/admin/access', { body: { mode: 'closed' } });
    expect(answer.status).toBe(400);
    expect(expectEnvelope(answer.body, 'validation_failed').schema_pointer).toBe('/mode');
  });

  it('invites an owner email once (normalized), lists it, and rejects a non-email', async () => {
    const first = await admin('/admin/access/invites', { body: { email: ' Owner@Example.COM ' } });
    expect(first.status).toBe(400); // surrounding spaces are not an email
    const created = await admin('/admin/access/invites', { body: { email: 'Owner@Example.COM' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      created: true,
      invite: { email: 'owner@example.com', used_at: null },
    });
    const repeat = await admin('/admin/access/invites', { body: { email: 'owner@example.com' } });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ created: false });
    const listed = await admin('/admin/access/invites');
    expect(listed.body.invites).toEqual([expect.objectContaining({ email: 'owner@example.com' })]);
    expect(await auditOf(created.body.audit_id)).toMatchObject({ action: 'access.invite' });
    const bad = await admin('/admin/access/invites', { body: { email: 'not-an-email' } });
    expect(bad.status).toBe(400);
    expect(expectEnvelope(bad.body, 'validation_failed').schema_pointer).toBe('/email');
  });
});

describe('mail suppressions', () => {
  it('adds, lists and removes an address, each change audited', async () => {
    const added = await admin('/admin/mail-suppressions', {
      body: { email: 'Bounce@Example.com', reason: 'bounce' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      created: true,
      suppression: { email: 'bounce@example.com', reason: 'bounce' },
    });
    const row = await gateway.knex('mail_suppressions').where({ email: 'bounce@example.com' }).first();
    expect(row.created_by).toBe(`operator:${gateway.operatorKey.slice(7, 19)}`);
    const again = await admin('/admin/mail-suppressions', { body: { email: 'bounce@example.com' } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, suppression: { reason: 'operator' } });

    const listed = await admin('/admin/mail-suppressions');
    expect(listed.body.suppressions).toEqual([expect.objectContaining({ email: 'bounce@example.com' })]);
    const removed = await admin('/admin/mail-suppressions/remove', { body: { email: 'bounce@example.com' } });
    expect(removed.body).toMatchObject({ email: 'bounce@example.com', removed: true });
    const absent = await admin('/admin/mail-suppressions/remove', { body: { email: 'bounce@example.com' } });
    expect(absent.body).toMatchObject({ removed: false });
    expect((await admin('/admin/mail-suppressions')).body.suppressions).toEqual([]);
    expect(await auditOf(added.body.audit_id)).toMatchObject({ action: 'mail.suppress' });
    expect(await auditOf(removed.body.audit_id)).toMatchObject({ action: 'mail.unsuppress' });
  });

  it('needs a JSON body: 415 without Content-Type, 400 validation_failed without email', async () => {
    const response = await fetch(`${gateway.url}/admin/mail-suppressions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gateway.operatorKey}` },
      body: 'email=x',
    });
    expect(response.status).toBe(415);
    const missing = await admin('/admin/mail-suppressions', { body: { reason: 'x' } });
    expect(missing.status).toBe(400);
    expect(expectEnvelope(missing.body, 'validation_failed').schema_pointer).toBe('/email');
  });

  it('reads no body before authenticating', async () => {
    const response = await fetch(`${gateway.url}/admin/mail-suppressions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(401);
  });
});

describe('logs', () => {
  it('never contain an operator key secret', () => {
    expect(log.text()).not.toContain(gateway.operatorKey.split('.')[1]);
  });
});
