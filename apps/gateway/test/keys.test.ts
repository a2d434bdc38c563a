// API keys on the access endpoints: the bootstrap key works once and only for /organizations,
// expiry and tampering are refused, operator keys are never accepted, and a key only ever reaches
// its own installation's data.

import { generateApiKey } from '@agw/guard';
import { describe, expect, it } from 'vitest';
import { onboard } from './helpers/access-client.js';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

const gateway = useGateway();

describe('keys', () => {
  it('the bootstrap key works for /organizations once, and nowhere else', async () => {
    const flow = await onboard(gateway.client);
    const again = await gateway.client.post('/organizations', flow.orgBody, { key: flow.bootstrapKey });
    expect(again.status).toBe(401);
    expectEnvelope(again.json, 'api_key_revoked');
    expectEnvelope((await gateway.client.get('/org/current', flow.bootstrapKey)).json, 'api_key_revoked');
    const fresh = await gateway.client.post('/register', {
      owner_email: 'fresh-owner@example.com',
      app: { slug: 'fresh-app', name: 'Fresh' },
    });
    const elsewhere = await gateway.client.get('/org/current', fresh.json.bootstrap_key.token);
    expect(elsewhere.status).toBe(403);
    expect(expectEnvelope(elsewhere.json, 'forbidden').hint).toMatch(/organizations/);
    const installationOnBootstrapRoute = await gateway.client.post('/organizations', flow.orgBody, {
      key: flow.installationKey,
    });
    expect(installationOnBootstrapRoute.status).toBe(403);
  });

  it('an expired bootstrap or installation key → 401 api_key_expired', async () => {
    const registered = await gateway.client.post('/register', {
      owner_email: 'expired-owner@example.com',
      app: { slug: 'expired-app', name: 'Expired' },
    });
    const token = registered.json.bootstrap_key.token as string;
    const prefix = token.slice('agw_ak_'.length, token.indexOf('.'));
    await gateway
      .knex('api_keys')
      .where({ prefix })
      .update({ expires_at: gateway.knex.raw("now() - interval '1 second'") });
    const answer = await gateway.client.post(
      '/organizations',
      { owner_email: 'expired-owner@example.com', organization: { name: 'Expired Org' } },
      { key: token },
    );
    expect(answer.status).toBe(401);
    expectEnvelope(answer.json, 'api_key_expired');

    const flow = await onboard(gateway.client);
    await gateway
      .knex('api_keys')
      .where({ installation_id: flow.installationId })
      .update({
        expires_at: gateway.knex.raw("now() - interval '1 second'"),
      });
    expectEnvelope((await gateway.client.get('/org/current', flow.installationKey)).json, 'api_key_expired');
  });

  it('missing, malformed, tampered and unknown keys → 401 with the same body shape', async () => {
    const flow = await onboard(gateway.client);
    expectEnvelope((await gateway.client.get('/org/current')).json, 'unauthenticated');
    const last = flow.installationKey.at(-1) === 'a' ? 'b' : 'a';
    const tampered = `${flow.installationKey.slice(0, -1)}${last}`;
    const unknown = generateApiKey().token;
    const messages = new Set<string>();
    for (const bad of ['agw_ak_short.x', tampered, unknown, flow.installationKey.replace('agw_', 'xyz_')]) {
      const answer = await gateway.client.get('/org/current', bad);
      expect(answer.status).toBe(401);
      messages.add(expectEnvelope(answer.json, 'invalid_api_key').message as string);
    }
    expect(messages.size).toBe(1);
  });

  it('an operator key is never accepted on agent endpoints', async () => {
    const operator = generateApiKey();
    await gateway.knex('api_keys').insert({
      prefix: operator.prefix,
      secret_hash: operator.hash,
      kind: 'operator',
      scopes: ['operator:admin'],
    });
    for (const answer of [
      await gateway.client.get('/org/current', operator.token),
      await gateway.client.post('/owner-otp/resend', {}, { key: operator.token }),
      await gateway.client.post(
        '/organizations',
        { owner_email: 'a@example.com', organization: { name: 'Nope' } },
        { key: operator.token },
      ),
    ]) {
      expect(answer.status).toBe(401);
      expectEnvelope(answer.json, 'invalid_api_key');
    }
  });

  it("installation A's key never reaches installation B's data", async () => {
    const a = await onboard(gateway.client);
    const b = await onboard(gateway.client);
    for (const flow of [a, b]) {
      await gateway
        .knex('installations')
        .where({ id: flow.installationId })
        .update({ owner_verified_at: gateway.knex.fn.now() });
    }
    const currentA = await gateway.client.get('/org/current', a.installationKey);
    expect(currentA.json.installation.id).toBe(a.installationId);
    expect(currentA.json.organization.id).toBe(a.organization.json.organization.id);
    expect(currentA.json.organization.id).not.toBe(b.organization.json.organization.id);
    // B's answers never mention A's ids, whatever A does.
    await gateway.client.post('/keys/rotate', {}, { key: a.installationKey });
    const currentB = await gateway.client.get('/org/current', b.installationKey);
    expect(currentB.status).toBe(200);
    expect(currentB.text).not.toContain(a.installationId);
  });

  it('refusals and state changes are audited without secrets', async () => {
    const flow = await onboard(gateway.client);
    const rows = await gateway
      .knex('audit_events')
      .whereRaw("details->>'installation_id' = ?", [flow.installationId]);
    expect(rows.map((row) => row.action)).toContain('organization.create');
    await gateway.client.post('/owner-otp/claim', { otp: '12345678' }, { key: flow.installationKey });
    const denied = await gateway
      .knex('audit_events')
      .where({ action: 'otp.owner.claim', outcome: 'denied' })
      .whereRaw("details->>'installation_id' = ?", [flow.installationId]);
    expect(denied).toHaveLength(1);
    expect(JSON.stringify(denied[0])).not.toContain('12345678');
    const refused = await gateway.client.get('/org/current', flow.installationKey);
    const audit = await gateway
      .knex('audit_events')
      .whereRaw("details->>'response_audit_id' = ?", [refused.json.error.audit_id]);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: `installation:${flow.installationId}`,
      action: 'org.current',
      outcome: 'denied',
    });
  });
});
