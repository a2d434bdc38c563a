// The whole onboarding over real HTTP with a real SMTP server receiving the code mails: both code
// orders, with and without agent_email, every 412, the approval states, field rules, access mode,
// and a log/database scan proving no issued key or code is kept in clear.
import { extractOtpFromBody } from '@agw/contracts';
import { type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, onboard, registration } from './helpers/access-client.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';
import { type CapturedLog, captureLog } from './helpers/log-capture.js';
import { type SmtpSink, startSmtpSink, waitUntil } from './helpers/mail-sink.js';

let environment: TestEnvironment;
let gateway: GatewayHandle;
let sink: SmtpSink;
let log: CapturedLog;
let client: AccessClient;
const issuedSecrets: string[] = [];

beforeAll(async () => {
  environment = await createTestEnvironment();
  sink = await startSmtpSink();
  log = captureLog();
  gateway = await startGateway(loadConfig({ ...environment.env, SMTP_URL: sink.url }), {
    logger: log.logger,
  });
  client = new AccessClient(gateway.url);
});

afterAll(async () => {
  await gateway?.close();
  await sink?.close();
  await environment?.cleanup();
});

/** The code in the newest mail to `to` whose subject contains `subjectPart`. */
async function codeFor(to: string, subjectPart = ''): Promise<string> {
  const mail = await sink.waitFor((m) => m.to.includes(to) && m.subject.includes(subjectPart));
  const code = extractOtpFromBody(mail.body);
  if (!code) throw new Error('no code line');
  issuedSecrets.push(code);
  return code;
}

function remember(flow: Awaited<ReturnType<typeof onboard>>) {
  issuedSecrets.push(flow.bootstrapKey, flow.installationKey);
  return flow;
}

async function expect412(key: string, missing: string[]) {
  for (const answer of [
    await client.get('/org/current', key),
    await client.post('/keys/rotate', {}, { key }),
  ]) {
    expect(answer.status).toBe(412);
    const error = expectEnvelope(answer.json, 'precondition_failed');
    expect((error.details as Array<{ missing: string }>).map((detail) => detail.missing)).toEqual(missing);
  }
}

describe('onboarding', () => {
  it('with agent_email: owner code first, then the agent code found through extraction', async () => {
    const flow = remember(await onboard(client, { agent: true }));
    expectSchema('RegisterResponse', flow.registered.json);
    expect(flow.registered.json.app.verification_status).toBe('unverified');
    expect(flow.registered.json.bootstrap_key.scopes).toEqual(['platform:bootstrap']);
    const org = flow.organization.json;
    expectSchema('OrganizationsResponse', org);
    expect(org.installation).toMatchObject({
      operator_approval_status: 'pending',
      owner_verified_at: null,
      agent_email_verification_status: 'pending',
    });
    expect(org.owner_otp_delivery.status).toMatch(/^(queued|sent)$/);
    const delivery = org.agent_otp_delivery;
    expect(delivery.extraction.imap_search).toEqual({
      header: 'Subject',
      contains: `Ref: ${delivery.correlation_id}`,
    });
    await expect412(flow.installationKey, ['owner_otp', 'agent_otp']);

    const ownerCode = await codeFor(flow.body.owner_email);
    const claimed = await client.post('/owner-otp/claim', { otp: ownerCode }, { key: flow.installationKey });
    expect(claimed.status).toBe(200);
    expectSchema('OwnerOtpClaimResponse', claimed.json);
    expect(claimed.json.installation.owner_verified_at).not.toBeNull();
    await expect412(flow.installationKey, ['agent_otp']);

    // The extraction object finds exactly one received mail and exactly its code line. The agent's
    // mail may still be on its way when the owner's has arrived: wait for it before counting.
    const byExtraction = (m: { subject: string }) =>
      m.subject.includes(delivery.extraction.imap_search.contains);
    await sink.waitFor(byExtraction);
    const matching = sink.messages.filter(byExtraction);
    expect(matching).toHaveLength(1);
    const agentMail = matching[0]!;
    expect(agentMail.to).toContain(flow.body.agent_email);
    for (const header of ['from', 'to', 'subject', 'date', 'message-id'])
      expect(agentMail.headers[header]).toBeTruthy();
    const lines = agentMail.body.replaceAll('\r\n', '\n').split('\n');
    expect(lines.filter((line) => new RegExp(delivery.extraction.code_regex).test(line))).toHaveLength(1);
    const agentCode = extractOtpFromBody(agentMail.body, delivery.extraction.code_regex)!;
    expect(agentCode).toMatch(/^\d{8}$/);
    issuedSecrets.push(agentCode);
    const verified = await client.post(
      delivery.extraction.verify_endpoint,
      { otp: agentCode },
      { key: flow.installationKey },
    );
    expect(verified.status).toBe(200);
    expectSchema('AgentOtpVerifyResponse', verified.json);
    expect(verified.json.installation.agent_email_verification_status).toBe('verified');

    const current = await client.get('/org/current', flow.installationKey);
    expect(current.status).toBe(200);
    expectSchema('OrgCurrentResponse', current.json);
    expect(current.json.installation.operator_approval_status).toBe('pending');
    expect(current.json.installation).not.toHaveProperty('operator_approved_at');
    expect(current.json.organization.short_id).toMatch(/^[2-9A-HJKMNP-Z]{8}$/);
    expect(current.json.principal.installation_id).toBe(flow.installationId);

    // The outbox erased the code-bearing ciphertext once the mails were sent (recorded just after the
    // SMTP server took each mail, so wait until neither row is still queued).
    const outbox = await waitUntil(async () => {
      const rows = await gateway
        .knex('mail_outbox')
        .whereIn('to_address', [flow.body.owner_email, flow.body.agent_email!]);
      return rows.every((row) => row.status !== 'queued') ? rows : undefined;
    });
    expect(outbox.map((row) => [row.status, row.body_ciphertext])).toEqual([
      ['sent', null],
      ['sent', null],
    ]);
  });

  it('with agent_email: agent code first, then owner code', async () => {
    const flow = remember(await onboard(client, { agent: true }));
    const agentCode = await codeFor(flow.body.agent_email!, 'Ref: ');
    expect(
      (await client.post('/agent-otp/verify', { otp: agentCode }, { key: flow.installationKey })).status,
    ).toBe(200);
    await expect412(flow.installationKey, ['owner_otp']);
    const ownerCode = await codeFor(flow.body.owner_email);
    expect(
      (await client.post('/owner-otp/claim', { otp: ownerCode }, { key: flow.installationKey })).status,
    ).toBe(200);
    expect((await client.get('/org/current', flow.installationKey)).status).toBe(200);
  });

  it('without agent_email: only the owner code, no agent delivery, agent endpoints refuse', async () => {
    const flow = remember(await onboard(client));
    expect(flow.organization.json.agent_otp_delivery).toBeNull();
    expect(flow.organization.json.installation.agent_email_verification_status).toBe('not_required');
    await expect412(flow.installationKey, ['owner_otp']);
    const verify = await client.post('/agent-otp/verify', { otp: '12345678' }, { key: flow.installationKey });
    expectEnvelope(verify.json, 'conflict');
    const ownerCode = await codeFor(flow.body.owner_email);
    expect(
      (await client.post('/owner-otp/claim', { otp: ownerCode }, { key: flow.installationKey })).status,
    ).toBe(200);
    const current = await client.get('/org/current', flow.installationKey);
    expect(current.status).toBe(200);
    expect(current.json.installation.agent_email).toBeNull();
  });

  it('approval, block and an inactive organization as the agent sees them', async () => {
    const flow = remember(await onboard(client));
    const ownerCode = await codeFor(flow.body.owner_email);
    await client.post('/owner-otp/claim', { otp: ownerCode }, { key: flow.installationKey });
    const installations = () => gateway.knex('installations').where({ id: flow.installationId });

    await installations().update({
      operator_approval_status: 'approved',
      operator_approved_at: gateway.knex.fn.now(),
    });
    const approved = await client.get('/org/current', flow.installationKey);
    expectSchema('OrgCurrentResponse', approved.json);
    expect(approved.json.installation.operator_approved_at).toEqual(expect.any(String));

    await installations().update({ operator_approval_status: 'blocked' });
    const blocked = await client.get('/org/current', flow.installationKey);
    expect(blocked.status).toBe(200);
    expect(blocked.json.installation.operator_approval_status).toBe('blocked');
    expectEnvelope(
      (await client.post('/owner-otp/resend', {}, { key: flow.installationKey })).json,
      'installation_blocked',
    );
    expectEnvelope(
      (await client.post('/keys/rotate', {}, { key: flow.installationKey })).json,
      'installation_blocked',
    );

    await installations().update({ operator_approval_status: 'approved' });
    await gateway
      .knex('organizations')
      .where({ id: flow.organization.json.organization.id })
      .update({ is_active: false });
    const inactive = await client.get('/org/current', flow.installationKey);
    expect(inactive.json.organization.is_active).toBe(false);
    const rotate = await client.post('/keys/rotate', {}, { key: flow.installationKey });
    expect(rotate.status).toBe(403);
    expectEnvelope(rotate.json, 'organization_inactive');
  });

  it('rotation: the new key works at once, the old one stops, the answer names it', async () => {
    const flow = remember(await onboard(client));
    await client.post(
      '/owner-otp/claim',
      { otp: await codeFor(flow.body.owner_email) },
      { key: flow.installationKey },
    );
    const rotated = await client.post('/keys/rotate', {}, { key: flow.installationKey });
    expect(rotated.status).toBe(201);
    expectSchema('KeysRotateResponse', rotated.json);
    issuedSecrets.push(rotated.json.key.token);
    const oldKey = await gateway.knex('api_keys').where({ id: rotated.json.key.rotated_from_key_id }).first();
    expect(flow.installationKey).toContain(oldKey.prefix);
    expect((await client.get('/org/current', rotated.json.key.token)).status).toBe(200);
    const old = await client.get('/org/current', flow.installationKey);
    expect(old.status).toBe(401);
    expectEnvelope(old.json, 'api_key_revoked');
    expectEnvelope(
      (await client.post('/keys/rotate', {}, { key: flow.installationKey })).json,
      'api_key_revoked',
    );
  });
});

describe('field rules', () => {
  it('app.slug and app.name at their boundaries; owner_email must be valid', async () => {
    const base = registration();
    const slug = (value: string) => client.post('/register', { ...base, app: { ...base.app, slug: value } });
    const short = await slug('ab');
    expect(short.status).toBe(400);
    expect(expectEnvelope(short.json, 'validation_failed').schema_pointer).toBe('/app/slug');
    expect((await slug('abc')).status).toBe(201);
    expect((await slug('a'.repeat(64))).status).toBe(400);
    const name = await client.post('/register', { ...base, app: { ...base.app, name: 'x' } });
    expect(expectEnvelope(name.json, 'validation_failed').schema_pointer).toBe('/app/name');
    const email = await client.post('/register', { ...base, owner_email: 'not-an-email' });
    expect(expectEnvelope(email.json, 'validation_failed').schema_pointer).toBe('/owner_email');
  });

  it('/organizations: owner_email and agent_email must repeat the registered ones; name 3 to 160', async () => {
    const body = registration({ agent: true });
    const registered = await client.post('/register', body);
    const key = registered.json.bootstrap_key.token as string;
    issuedSecrets.push(key);
    const org = (override: object) =>
      client.post(
        '/organizations',
        {
          owner_email: body.owner_email,
          agent_email: body.agent_email,
          organization: { name: 'Acme' },
          ...override,
        },
        { key },
      );
    const owner = await org({ owner_email: 'other@example.com' });
    expect(owner.status).toBe(400);
    expect(expectEnvelope(owner.json, 'validation_failed').schema_pointer).toBe('/owner_email');
    expect(
      expectEnvelope((await org({ agent_email: 'x@example.com' })).json, 'validation_failed').schema_pointer,
    ).toBe('/agent_email');
    expect((await org({ organization: { name: 'ab' } })).status).toBe(400);
    expect((await org({ organization: { name: 'x'.repeat(161) } })).status).toBe(400);
    // None of the refusals consumed the bootstrap key.
    const created = await org({ organization: { name: 'abc' } });
    expect(created.status).toBe(201);
    issuedSecrets.push(created.json.installation_key.token);
  });
});

describe('access mode', () => {
  it('invite_only refuses uninvited owners with a hint and admits invited ones', async () => {
    await gateway
      .knex('gateway_settings')
      .insert({ key: 'access_mode', value: JSON.stringify('invite_only') });
    try {
      const body = registration();
      const refused = await client.post('/register', body);
      expect(refused.status).toBe(403);
      expect(expectEnvelope(refused.json, 'forbidden').hint).toMatch(/invite/);
      await gateway.knex('access_invites').insert({ email: body.owner_email, invited_by: 'test' });
      const admitted = await client.post('/register', body);
      expect(admitted.status).toBe(201);
      issuedSecrets.push(admitted.json.bootstrap_key.token);
      const invite = await gateway.knex('access_invites').where({ email: body.owner_email }).first();
      expect(invite.used_at).not.toBeNull();
    } finally {
      await gateway.knex('gateway_settings').where({ key: 'access_mode' }).delete();
    }
  });
});

describe('secrets at rest and in logs', () => {
  it('no issued key or code appears in the logs or in any stored row', async () => {
    expect(issuedSecrets.length).toBeGreaterThan(10);
    const logs = log.text();
    expect(logs).toContain('"route":"/organizations"');
    const tables = [
      'idempotency_keys',
      'api_keys',
      'otp_codes',
      'mail_outbox',
      'audit_events',
      'apps',
      'installations',
    ];
    const dump: string[] = [];
    for (const table of tables) {
      for (const row of await gateway.knex(table).select()) {
        for (const value of Object.values(row)) {
          dump.push(
            Buffer.isBuffer(value) || value instanceof Uint8Array
              ? Buffer.from(value).toString('latin1')
              : JSON.stringify(value),
          );
        }
      }
    }
    const stored = dump.join('\n');
    for (const secret of issuedSecrets) {
      const secretPart = secret.includes('.') ? secret.split('.')[1]! : secret;
      expect(logs.includes(secretPart), 'secret in logs').toBe(false);
      expect(stored.includes(secretPart), 'secret stored in clear').toBe(false);
    }
  });
});
