// Issue 12, finding 2: a secret never comes back from an idempotency replay to someone else. The probe
// recovered a working installation key in two steps — /register replayed with another client's
// Idempotency-Key and body gave its bootstrap key, /organizations replayed with that gave its
// installation key. Both steps fail now, and no idempotency key is stored in clear anywhere.
import {
  hashIdempotencyKey,
  IdempotencyStore,
  loadServerSecret,
  rehashLegacyIdempotencyKeys,
  SecretBox,
} from '@agw/gateway';
import { describe, expect, it } from 'vitest';
import { registration } from './helpers/access-client.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';

const gateway = useGateway();

describe('the probe’s two-step key recovery', () => {
  it('a stranger replaying /register gets no bootstrap key, and /organizations under its own key gets no victim’s installation key', async () => {
    const { client } = gateway;
    // The victim onboards; the attacker learns both Idempotency-Keys and bodies (e.g. from a log).
    const victimBody = registration();
    const victimRegisterIdem = `victim-register-${crypto.randomUUID()}`;
    const victim = await client.post('/register', victimBody, { idem: victimRegisterIdem });
    expect(victim.status).toBe(201);
    const victimBootstrap = victim.json.bootstrap_key.token as string;
    const orgBody = { owner_email: victimBody.owner_email, organization: { name: 'Victim Org' } };
    const victimOrgIdem = `victim-orgs-${crypto.randomUUID()}`;
    const victimOrg = await client.post('/organizations', orgBody, {
      key: victimBootstrap,
      idem: victimOrgIdem,
    });
    expect(victimOrg.status).toBe(201);
    const victimInstallationKey = victimOrg.json.installation_key.token as string;

    // Step 1: the replay of /register answers the registration, not its bootstrap key.
    const replayed = await client.post('/register', victimBody, { idem: victimRegisterIdem });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expectSchema('RegisterResponse', replayed.json);
    expect(replayed.json).toMatchObject({ app: victim.json.app, bootstrap_key: null, replayed: true });
    expect(replayed.json.hint).toMatch(/shown only in the first answer/);
    expect(replayed.text).not.toContain(victimBootstrap.split('.')[1]);

    // Step 2: without the victim's bootstrap key, /organizations with the victim's Idempotency-Key and
    // body runs in the attacker's own scope (another principal): a fresh organization, never the
    // victim's stored answer.
    const attacker = await client.post('/register', {
      ...registration(),
      owner_email: victimBody.owner_email,
    });
    const attackerBootstrap = attacker.json.bootstrap_key.token as string;
    const stranger = await client.post('/organizations', orgBody, {
      key: attackerBootstrap,
      idem: victimOrgIdem,
    });
    expect(stranger.status).toBe(201);
    expect(stranger.headers.get('idempotent-replayed')).toBeNull();
    expect(stranger.json.organization.id).not.toBe(victimOrg.json.organization.id);
    expect(stranger.text).not.toContain(victimInstallationKey.split('.')[1]);
    // Without any key there is no replay at all.
    const anonymous = await client.post('/organizations', orgBody, { idem: victimOrgIdem });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain(victimInstallationKey.split('.')[1]);

    // The victim's own retries still work: its bootstrap key replays its own answer.
    const own = await client.post('/organizations', orgBody, { key: victimBootstrap, idem: victimOrgIdem });
    expect(own.text).toBe(victimOrg.text);
  });

  it('a rotation is replayed only to the key that made it; another key with the same Idempotency-Key rotates itself', async () => {
    const a = await approvedInstallation(gateway);
    const b = await approvedInstallation(gateway);
    const idem = `rotate-shared-${crypto.randomUUID()}`;
    const first = await gateway.client.post('/keys/rotate', {}, { key: a.key, idem });
    expect(first.status).toBe(201);
    const other = await gateway.client.post('/keys/rotate', {}, { key: b.key, idem });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.json.key.rotated_from_key_id).not.toBe(first.json.key.rotated_from_key_id);
    expect(other.text).not.toContain(first.json.key.token.split('.')[1]);
  });
});

describe('idempotency keys at rest', () => {
  it('no idempotency key appears in clear in any table; the audit keeps a 16-hex hash prefix', async () => {
    const { client, knex } = gateway;
    const used: string[] = [];
    const idem = (label: string) => {
      const value = `clear-${label}-${crypto.randomUUID()}`;
      used.push(value);
      return value;
    };
    const body = registration();
    const registered = await client.post('/register', body, { idem: idem('register') });
    await client.post('/register', body, { idem: used[0] ?? '' }); // a replay is audited too
    await client.post(
      '/organizations',
      { owner_email: body.owner_email, organization: { name: 'At Rest Org' } },
      { key: registered.json.bootstrap_key.token, idem: idem('orgs') },
    );
    const paid = await approvedInstallation(gateway, '5');
    const uploadKey = idem('upload');
    const upload = {
      id: 'documents.document.upload',
      params: {
        file_name: 'a.txt',
        mime_type: 'text/plain',
        content_base64: Buffer.from('hi').toString('base64'),
      },
      idempotency_key: uploadKey,
    };
    const invoked = await client.post('/mcp/invoke', upload, { key: paid.key, idem: null });
    expect(invoked.status).toBe(200);
    expect((await client.post('/mcp/invoke', upload, { key: paid.key, idem: null })).json.replayed).toBe(
      true,
    );
    await client.post('/keys/rotate', {}, { key: paid.key, idem: idem('rotate') });

    const tables: { table_name: string }[] = (
      await knex.raw(
        `select table_name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`,
      )
    ).rows;
    expect(tables.map((table) => table.table_name)).toContain('idempotency_keys');
    for (const { table_name } of tables) {
      const rows: { row: string }[] = (await knex.raw(`select t::text as row from "${table_name}" t`)).rows;
      for (const { row } of rows) {
        for (const key of used) expect(row, `${key} in ${table_name}`).not.toContain(key);
      }
    }
    const audited = await knex('audit_events').where({ audit_id: invoked.json.audit_id }).first();
    const details = typeof audited.details === 'string' ? JSON.parse(audited.details) : audited.details;
    expect(details.idempotency_key).toBeUndefined();
    expect(details.idempotency_key_hash).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('slug', () => {
  it('registering a slug that exists is 409 conflict naming the slug, and makes no second app', async () => {
    const body = registration();
    expect((await gateway.client.post('/register', body)).status).toBe(201);
    const again = await gateway.client.post('/register', { ...registration(), app: body.app });
    expect(again.status).toBe(409);
    const envelope = expectEnvelope(again.json, 'conflict');
    expect(envelope.message).toContain(`"${body.app.slug}"`);
    expect(envelope.schema_pointer).toBe('/app/slug');
    expect(await gateway.knex('apps').where({ slug: body.app.slug })).toHaveLength(1);
  });
});

describe('key hints', () => {
  it('a consumed bootstrap key points at the installation key, not /keys/rotate; an installation key on /organizations says "An"', async () => {
    const body = registration();
    const registered = await gateway.client.post('/register', body);
    const bootstrap = registered.json.bootstrap_key.token as string;
    const created = await gateway.client.post(
      '/organizations',
      { owner_email: body.owner_email, organization: { name: 'Hint Org' } },
      { key: bootstrap },
    );
    const spent = await gateway.client.get('/org/current', bootstrap);
    const envelope = expectEnvelope(spent.json, 'api_key_revoked');
    expect(envelope.hint).toContain('installation key returned by POST /organizations');
    expect(envelope.hint).not.toContain('/keys/rotate');
    const wrongKind = await gateway.client.post(
      '/organizations',
      { owner_email: body.owner_email, organization: { name: 'Hint Org' } },
      { key: created.json.installation_key.token },
    );
    expect(expectEnvelope(wrongKind.json, 'forbidden').message).toBe(
      'An installation key cannot be used here.',
    );
  });
});

describe('keys stored in clear by an earlier version', () => {
  it('are rehashed at start, and their stored answer still replays under the hash', async () => {
    const box = new SecretBox(loadServerSecret({ dataDir: gateway.dataDir, databaseUrl: undefined }));
    const clear = `legacy-clear-${crypto.randomUUID()}`;
    await gateway.knex('idempotency_keys').insert({
      scope_tenant: 'legacy-tenant',
      scope_principal: 'legacy-principal',
      idem_key: clear,
      fingerprint: 'legacy-fingerprint',
      state: 'completed',
      recovery_point: 'finished',
      response_status: 201,
      response_headers: JSON.stringify({ 'content-type': 'application/json' }),
      response_body: Buffer.from('{"legacy":true}'),
      key_hashed: false,
    });
    expect(await rehashLegacyIdempotencyKeys(gateway.knex, box)).toBe(1);
    expect(await gateway.knex('idempotency_keys').where({ idem_key: clear })).toHaveLength(0);
    const store = new IdempotencyStore(gateway.knex, box);
    const scope = {
      tenant: 'legacy-tenant',
      principal: 'legacy-principal',
      key: hashIdempotencyKey(box, clear),
    };
    const replay = await store.begin(scope, 'legacy-fingerprint', 'request-after-upgrade');
    expect(replay.kind).toBe('replay');
    expect(replay.kind === 'replay' && replay.response.body.toString()).toBe('{"legacy":true}');
  });
});
