// Two gateway *processes* (the built `agw serve`, spawned) on one PostgreSQL and one Redis: a burst of
// identical requests split across both executes once. Per round, 50 concurrent invokes of a charged
// mutating capability with one idempotency_key → one document row, one ledger charge, every answer the
// same body (a call told the twin is in progress retries, as a client does); the same for /register and
// /organizations with one Idempotency-Key. PostgreSQL only (PGlite is single-process).
import { randomBytes, randomUUID } from 'node:crypto';
import { rollUpCharges } from '@agw/gateway';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, type Answer, registration } from '../../apps/gateway/test/helpers/access-client.js';
import { createTestEnvironment, type TestEnvironment } from '../../apps/gateway/test/helpers/environment.js';
import { type Served, serve, stop } from './helpers/serve.js';

const ROUNDS = 20;
const BURST = 50;
const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('two gateway processes on one PostgreSQL', () => {
  let environment: TestEnvironment;
  let knex: Knex;
  let a: Served;
  let b: Served;
  let clients: [AccessClient, AccessClient];

  beforeAll(async () => {
    environment = await createTestEnvironment();
    // Several instances must share SECRET_KEY (MACs of codes and idempotency fingerprints).
    // The bursts are far above the default rate limits, which are not what this file tests.
    const env = {
      ...environment.env,
      SECRET_KEY: randomBytes(32).toString('hex'),
      RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '999999',
      RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '999999',
    };
    a = await serve(env);
    b = await serve(env);
    clients = [new AccessClient(a.url), new AccessClient(b.url)];
    knex = knexFactory({ client: 'pg', connection: environment.env.DATABASE_URL, pool: { min: 0, max: 2 } });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([stop(a), stop(b)]);
    await knex?.destroy();
    await environment?.cleanup();
  });

  /**
   * `count` calls, alternating between the two processes, all in flight at once. A call answered
   * `idempotency_request_in_progress` (the twin is still running) is retried as a client would.
   */
  const burst = (count: number, call: (client: AccessClient) => Promise<Answer>) =>
    Promise.all(
      Array.from({ length: count }, async (_, index) => {
        for (let attempt = 0; ; attempt += 1) {
          const answer = await call(clients[index % 2] as AccessClient);
          const busy =
            answer.status === 409 && answer.json?.error?.code === 'idempotency_request_in_progress';
          if (!busy || attempt === 40) return answer;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }),
    );

  /** Every answer carries the same status and body (ignoring the replay flag). */
  function expectOneOutcome(answers: Answer[], status: number) {
    const bodies = answers.map((answer) => {
      expect(answer.status).toBe(status);
      const { replayed: _replayed, ...body } = answer.json as Record<string, unknown>;
      return JSON.stringify(body);
    });
    expect(new Set(bodies).size).toBe(1);
  }

  it('/register and /organizations: one app, one organization per key, whichever process answers', async () => {
    const body = registration();
    const registers = await burst(BURST, (client) =>
      client.post('/register', body, { idem: 'race-register-000001' }),
    );
    // One answer carries the bootstrap key; the replays answer the same registration without it.
    const fresh = registers.filter((answer) => answer.json.bootstrap_key !== null);
    expect(fresh).toHaveLength(1);
    expectOneOutcome(
      registers.map((answer) => ({
        ...answer,
        json: { ...answer.json, bootstrap_key: null, hint: undefined },
      })),
      201,
    );
    expect(await knex('apps').where({ slug: body.app.slug }).count('* as n').first()).toEqual({ n: '1' });

    const bootstrap = (fresh[0] as Answer).json.bootstrap_key.token as string;
    const orgBody = { owner_email: body.owner_email, organization: { name: `Org ${body.app.slug}` } };
    const orgs = await burst(BURST, (client) =>
      client.post('/organizations', orgBody, { key: bootstrap, idem: 'race-organizations-000001' }),
    );
    expectOneOutcome(orgs, 201);
    const installationId = (orgs[0] as Answer).json.installation.id as string;
    const installations = await knex('installations').where({ id: installationId });
    expect(installations).toHaveLength(1);
    const organizationId = installations[0].organization_id as string;
    expect(await knex('organizations').where({ id: organizationId }).count('* as n').first()).toEqual({
      n: '1',
    });
  }, 60_000);

  it(`${ROUNDS} rounds of ${BURST} identical uploads: one document and one charge per round`, async () => {
    const body = registration();
    const registered = await clients[0].post('/register', body);
    const created = await clients[1].post(
      '/organizations',
      { owner_email: body.owner_email, organization: { name: `Org ${body.app.slug}` } },
      { key: registered.json.bootstrap_key.token },
    );
    expect(created.status).toBe(201);
    const key = created.json.installation_key.token as string;
    const installationId = created.json.installation.id as string;
    const organizationId = created.json.organization.id as string;
    await knex('installations')
      .where({ id: installationId })
      .update({ owner_verified_at: knex.fn.now(), operator_approval_status: 'approved' });
    await knex('wallets').insert({ organization_id: organizationId, balance: '100' });

    for (let round = 0; round < ROUNDS; round += 1) {
      const invoke = {
        id: 'documents.document.upload',
        params: {
          file_name: `round-${round}.txt`,
          mime_type: 'text/plain',
          content_base64: Buffer.from(`round ${round} ${randomUUID()}`).toString('base64'),
        },
        idempotency_key: `race-upload-${round}-${randomUUID()}`,
      };
      const answers = await burst(BURST, (client) => client.post('/mcp/invoke', invoke, { key, idem: null }));
      expectOneOutcome(answers, 200);
      expect(answers.filter((answer) => answer.json.replayed !== true)).toHaveLength(1);
    }
    const documents = await knex('documents').where({ organization_id: organizationId });
    expect(documents).toHaveLength(ROUNDS);
    const charges = await knex('wallet_ledger').where({ organization_id: organizationId, kind: 'charge' });
    expect(charges).toHaveLength(ROUNDS);
    // Both processes roll charges up: each folds into the balance exactly once.
    await rollUpCharges(knex);
    const wallet = await knex('wallets').where({ organization_id: organizationId }).first();
    expect(Number(wallet.balance)).toBeCloseTo(100 - ROUNDS * 0.02, 6);
  }, 120_000);
});
