// Idempotency of the access mutations (security rules §1.2–1.4) over real HTTP: header rules,
// byte-identical replays, key reuse with another body, a concurrent duplicate burst, stored business
// refusals, unstored guard refusals, scope per installation, expiry, and no plaintext key at rest.
import { randomBytes } from 'node:crypto';
import {
  type GatewayHandle,
  IdempotencyStore,
  jsonBody,
  knexTransaction,
  loadConfig,
  runIdempotent,
  SecretBox,
  startGateway,
} from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, onboard, registration } from './helpers/access-client.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';
import { storedKeyFor } from './helpers/idempotency-hash.js';
import { readDevMailbox, waitUntil } from './helpers/mail-sink.js';

let environment: TestEnvironment;
let gateway: GatewayHandle;
let client: AccessClient;

beforeAll(async () => {
  environment = await createTestEnvironment();
  gateway = await startGateway(loadConfig(environment.env), {
    // A test-only mutation whose effect fails once after the claim (a database error mid-transaction).
    extendRouter: (router) =>
      router.post('/__test/flaky', jsonBody(1024), async (ctx) => {
        const store = new IdempotencyStore(gateway.knex, testBox);
        const key = String(ctx.get('Idempotency-Key'));
        await runIdempotent(
          ctx,
          {
            knex: gateway.knex,
            store,
            box: testBox,
            scope: { tenant: 'test', principal: 'flaky', key },
            route: 'POST /__test/flaky',
            body: ctx.state.body,
            encrypt: false,
            audit: { actor: 'test', action: 'test.flaky', details: {} },
          },
          async (trx) => {
            const slug = (ctx.state.body as { slug: string }).slug;
            await trx('apps').insert({ slug, name: 'Flaky', owner_email: 'flaky@example.com' });
            if (failNext) {
              failNext = false;
              await trx.raw('select * from table_that_does_not_exist');
            }
            return { status: 201, body: { slug } };
          },
        );
      }),
  });
  client = new AccessClient(gateway.url);
});

const testBox = new SecretBox(randomBytes(32));
let failNext = true;

afterAll(async () => {
  await gateway?.close();
  await environment?.cleanup();
});

const appCount = async (slug: string) => (await gateway.knex('apps').where({ slug })).length;
const key = (length: number, fill = 'k') => fill.repeat(length);

describe('Idempotency-Key header', () => {
  it('missing → 400 idempotency_key_required, before any effect', async () => {
    const body = registration();
    const answer = await client.post('/register', body, { idem: null });
    expect(answer.status).toBe(400);
    expectEnvelope(answer.json, 'idempotency_key_required');
    expect(await appCount(body.app.slug)).toBe(0);
  });

  it('malformed → 400 idempotency_key_invalid; 16, 128 and the quoted form are accepted', async () => {
    for (const bad of [
      '',
      key(15),
      key(129),
      `${key(16)},x`,
      `${key(10)} ${key(10)}`,
      `${key(10)}"${key(10)}`,
    ]) {
      expectEnvelope(
        (await client.post('/register', registration(), { idem: bad })).json,
        'idempotency_key_invalid',
      );
    }
    for (const good of [key(16, 'a'), key(128, 'b'), `"${key(20, 'c')}"`]) {
      expect((await client.post('/register', registration(), { idem: good })).status).toBe(201);
    }
  });

  it('GET /org/current ignores an Idempotency-Key', async () => {
    const flow = await onboard(client);
    const answer = await fetch(`${gateway.url}/org/current`, {
      headers: { Authorization: `Bearer ${flow.installationKey}`, 'Idempotency-Key': 'x' },
    });
    expect(answer.status).toBe(412);
  });
});

describe('replay and conflict', () => {
  it('same key and body → the stored status and the same registration, marked replayed, without the bootstrap key; one effect', async () => {
    const body = registration();
    const idem = 'replay-register-0001';
    const first = await client.post('/register', body, { idem });
    const second = await client.post('/register', body, { idem });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    // /register has no principal: the one-time bootstrap key is shown to the first answer only.
    expect(second.json).toEqual({
      ...first.json,
      bootstrap_key: null,
      replayed: true,
      hint: expect.stringContaining('new Idempotency-Key'),
    });
    expect(await client.post('/register', body, { idem })).toMatchObject({ text: second.text });
    expectSchema('RegisterResponse', second.json);
    expect(await appCount(body.app.slug)).toBe(1);
  });

  it('same key, different body → 409 idempotency_key_reused, not retryable, no effect', async () => {
    const idem = 'reused-register-0001';
    await client.post('/register', registration(), { idem });
    const other = registration();
    const answer = await client.post('/register', other, { idem });
    expect(answer.status).toBe(409);
    expect(expectEnvelope(answer.json, 'idempotency_key_reused').retryable).toBe(false);
    expect(await appCount(other.app.slug)).toBe(0);
  });

  it('a refused request is not stored: the corrected request may reuse the key', async () => {
    const idem = 'corrected-body-0001';
    const body = registration();
    const invalid = await client.post('/register', { ...body, app: { ...body.app, slug: 'X' } }, { idem });
    expect(invalid.status).toBe(400);
    const fixed = await client.post('/register', body, { idem });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('an expired record is treated as absent: the same key runs again', async () => {
    const idem = 'expiring-key-00001';
    const body = registration();
    await client.post('/register', body, { idem });
    await gateway
      .knex('idempotency_keys')
      .where({ idem_key: storedKeyFor(environment.dataDir, idem) })
      .update({
        expires_at: gateway.knex.raw("now() - interval '1 second'"),
      });
    // It runs again (no replay); the slug it registered is taken now, so it is refused as a conflict.
    const again = await client.post('/register', body, { idem });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(409);
    expect(expectEnvelope(again.json, 'conflict').message).toContain(body.app.slug);
    expect(await appCount(body.app.slug)).toBe(1);
  });

  it('a wrong code is a stored refusal: its replay counts no second attempt', async () => {
    const flow = await onboard(client);
    const idem = 'wrong-code-key-0001';
    const first = await client.post(
      '/owner-otp/claim',
      { otp: '00000000' },
      { key: flow.installationKey, idem },
    );
    const replay = await client.post(
      '/owner-otp/claim',
      { otp: '00000000' },
      { key: flow.installationKey, idem },
    );
    expect(first.status).toBe(400);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const code = await gateway
      .knex('otp_codes')
      .where({ installation_id: flow.installationId })
      .first('attempts');
    expect(code.attempts).toBe(1);
  });

  it('the same key under two installations runs for each (scope is per organization and key)', async () => {
    const a = await onboard(client);
    const b = await onboard(client);
    const idem = 'shared-across-inst-1';
    const answerA = await client.post(
      '/owner-otp/claim',
      { otp: '11111111' },
      { key: a.installationKey, idem },
    );
    const answerB = await client.post(
      '/owner-otp/claim',
      { otp: '11111111' },
      { key: b.installationKey, idem },
    );
    expect(answerB.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(answerB.text).error.audit_id).not.toBe(JSON.parse(answerA.text).error.audit_id);
  });
});

describe('one-time keys in replays', () => {
  it('20 parallel identical /organizations → one organization; the rest replay it or are told to retry', async () => {
    const body = registration();
    const registered = await client.post('/register', body);
    const bootstrap = registered.json.bootstrap_key.token as string;
    const orgBody = { owner_email: body.owner_email, organization: { name: 'Parallel Org' } };
    const idem = 'parallel-orgs-00001';
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => client.post('/organizations', orgBody, { key: bootstrap, idem })),
    );
    const successes = answers.filter((answer) => answer.status === 201);
    const busy = answers.filter((answer) => answer.status === 409);
    expect(successes.length + busy.length).toBe(20);
    expect(successes.length).toBeGreaterThan(0);
    expect(new Set(successes.map((answer) => answer.text)).size).toBe(1);
    for (const answer of busy) {
      expect(expectEnvelope(answer.json, 'idempotency_request_in_progress').retry_after_seconds).toBe(1);
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    const app = await gateway.knex('apps').where({ slug: body.app.slug }).first('id');
    expect(await gateway.knex('installations').where({ app_id: app.id })).toHaveLength(1);

    // A later retry replays the same installation key; the stored row never holds it in clear.
    const retry = await client.post('/organizations', orgBody, { key: bootstrap, idem });
    expect(retry.text).toBe(successes[0]!.text);
    const token = retry.json.installation_key.token as string;
    const rows = await gateway
      .knex('idempotency_keys')
      .where({ idem_key: storedKeyFor(environment.dataDir, idem) });
    expect(rows).toHaveLength(1);
    expect(rows[0].response_encrypted).toBe(true);
    const bytes = Buffer.concat(
      Object.values(rows[0]).map((value) =>
        value instanceof Uint8Array ? Buffer.from(value) : Buffer.from(JSON.stringify(value) ?? ''),
      ),
    );
    expect(bytes.includes(Buffer.from(token.split('.')[1]!))).toBe(false);
    expect(bytes.includes(Buffer.from(token))).toBe(false);

    // One owner mail for the one organization.
    const mails = await waitUntil(async () => {
      const found = (await readDevMailbox(environment.dataDir)).filter((m) =>
        m.to.includes(body.owner_email),
      );
      return found.length > 0 ? found : undefined;
    });
    expect(mails).toHaveLength(1);
  });

  it('a lost /keys/rotate answer is recovered by replaying with the old key; nothing else works with it', async () => {
    const flow = await onboard(client);
    await gateway
      .knex('installations')
      .where({ id: flow.installationId })
      .update({ owner_verified_at: gateway.knex.fn.now() });
    const idem = 'rotate-lost-answer-1';
    const first = await client.post('/keys/rotate', {}, { key: flow.installationKey, idem });
    expect(first.status).toBe(201);
    const replay = await client.post('/keys/rotate', {}, { key: flow.installationKey, idem });
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectEnvelope(
      (await client.post('/keys/rotate', {}, { key: flow.installationKey })).json,
      'api_key_revoked',
    );
    expectEnvelope((await client.get('/org/current', flow.installationKey)).json, 'api_key_revoked');
  });
});

describe('retention', () => {
  it('the reaper deletes expired records (their ciphertexts with them) and keeps the rest', async () => {
    const store = new IdempotencyStore(gateway.knex, new SecretBox(randomBytes(32)));
    const kept = { tenant: 'org-reap-test', principal: 'key-1', key: 'reap-kept-key-00001' };
    const gone = { ...kept, key: 'reap-gone-key-00001' };
    await store.begin(kept, 'f1', 'request-a');
    await store.begin(gone, 'f1', 'request-a');
    await gateway
      .knex('idempotency_keys')
      .where({ idem_key: gone.key })
      .update({ expires_at: gateway.knex.raw("now() - interval '1 second'") });
    // The store's first access starts a reap of its own, which may run after the update and take the
    // expired row first: what counts is that it is gone and the live one kept.
    await store.reap();
    const left = await gateway
      .knex('idempotency_keys')
      .where({ scope_tenant: 'org-reap-test' })
      .pluck('idem_key');
    expect(left).toEqual([kept.key]);
    expect(await store.reap()).toBe(0);
  });
});

describe('leases and fencing', () => {
  it('a live lease answers in progress; an expired one is taken over and the first holder can no longer commit', async () => {
    const store = new IdempotencyStore(gateway.knex, new SecretBox(randomBytes(32)));
    const scope = { tenant: 'org-lease-test', principal: 'key-1', key: 'lease-fencing-key-01' };
    expect(await store.begin(scope, 'f1', 'request-a')).toEqual({ kind: 'claimed' });
    await expect(store.begin(scope, 'f1', 'request-b')).rejects.toMatchObject({
      code: 'idempotency_request_in_progress',
    });
    await expect(store.begin(scope, 'f2', 'request-b')).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    });

    await gateway
      .knex('idempotency_keys')
      .where({ idem_key: scope.key })
      .update({
        lease_expires_at: gateway.knex.raw("now() - interval '1 second'"),
      });
    expect(await store.begin(scope, 'f1', 'request-b')).toEqual({ kind: 'claimed' });
    const response = { status: 200, contentType: 'application/json', body: Buffer.from('{"a":1}') };
    await expect(
      knexTransaction(gateway.knex, async (trx) => {
        await store.fence(trx, scope, 'request-a');
        await store.complete(trx, scope, 'request-a', response, false);
      }),
    ).rejects.toMatchObject({ code: 'idempotency_request_in_progress' });
    await knexTransaction(gateway.knex, async (trx) => {
      await store.fence(trx, scope, 'request-b');
      await store.complete(trx, scope, 'request-b', response, false);
    });
    const replay = await store.begin(scope, 'f1', 'request-c');
    expect(replay.kind === 'replay' && replay.response.body.toString()).toBe('{"a":1}');
  });
});

describe('failures after the claim', () => {
  it('a database error rolls back and releases the key: 500 retryable, the retry runs once', async () => {
    const idem = 'flaky-effect-key-001';
    const first = await client.post('/__test/flaky', { slug: 'flaky-app' }, { idem });
    expect(first.status).toBe(500);
    expect(expectEnvelope(first.json, 'internal_error').retryable).toBe(true);
    expect(await appCount('flaky-app')).toBe(0);
    const retry = await client.post('/__test/flaky', { slug: 'flaky-app' }, { idem });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const replay = await client.post('/__test/flaky', { slug: 'flaky-app' }, { idem });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await appCount('flaky-app')).toBe(1);
  });
});
