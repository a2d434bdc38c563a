// Billing under concurrency across two gateway *processes* on one PostgreSQL: 20 finalizes at once,
// alternating between the processes, hand out 20 distinct consecutive numbers (the counter row is
// locked in each finalize transaction); 20 payments of 1.00 at once on one 20.00 invoice all apply
// (the document row is locked per payment: no lost update), and the one more is refused: the invoice
// is paid. PostgreSQL only (PGlite is single-process).
import { randomBytes, randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, type Answer, registration } from '../../apps/gateway/test/helpers/access-client.js';
import { createTestEnvironment, type TestEnvironment } from '../../apps/gateway/test/helpers/environment.js';
import { type Served, serve, stop } from './helpers/serve.js';

const CONCURRENT = 20;
const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('billing on two gateway processes', () => {
  let environment: TestEnvironment;
  let knex: Knex;
  let a: Served;
  let b: Served;
  let clients: [AccessClient, AccessClient];
  let key: string;

  beforeAll(async () => {
    environment = await createTestEnvironment();
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
    const body = registration();
    const registered = await clients[0].post('/register', body);
    const created = await clients[1].post(
      '/organizations',
      { owner_email: body.owner_email, organization: { name: `Org ${body.app.slug}` } },
      { key: registered.json.bootstrap_key.token },
    );
    key = created.json.installation_key.token as string;
    await knex('installations')
      .where({ id: created.json.installation.id })
      .update({ owner_verified_at: knex.fn.now(), operator_approval_status: 'approved' });
    await knex('wallets').insert({ organization_id: created.json.organization.id, balance: '100' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([stop(a), stop(b)]);
    await knex?.destroy();
    await environment?.cleanup();
  });

  const invoke = (client: AccessClient, id: string, params: Record<string, unknown>, extra = {}) =>
    client.post(
      '/mcp/invoke',
      { id, params, idempotency_key: `race-${randomUUID()}`, ...extra },
      { key, idem: null },
    );
  const draft = async (amount: number) => {
    const answer = await invoke(clients[0], 'billing.document.create_draft', {
      document_type: 'invoice',
      document_date: '2026-11-26',
      lines: [{ item_name: 'Race', quantity: 1, unit_price: amount }],
    });
    expect(answer.status).toBe(200);
    return answer.json.result.document_id as string;
  };

  it(`${CONCURRENT} concurrent finalizes on two processes: ${CONCURRENT} distinct consecutive numbers`, async () => {
    const ids = [];
    for (let i = 0; i < CONCURRENT; i += 1) ids.push(await draft(1));
    const answers: Answer[] = await Promise.all(
      ids.map((document_id, index) =>
        invoke(clients[index % 2] as AccessClient, 'billing.document.finalize', { document_id }),
      ),
    );
    for (const answer of answers) expect(answer.json.status).toBe('succeeded');
    const numbers = answers.map((answer) => answer.json.result.number as string).sort();
    expect(numbers).toEqual(
      Array.from({ length: CONCURRENT }, (_, i) => `INV-2026-${String(i + 1).padStart(5, '0')}`),
    );
  }, 60_000);

  it(`${CONCURRENT} concurrent payments of 1.00 on a ${CONCURRENT}.00 invoice: all apply, none is lost`, async () => {
    const documentId = await draft(CONCURRENT);
    expect((await invoke(clients[0], 'billing.document.finalize', { document_id: documentId })).status).toBe(
      200,
    );
    // payment.record is risk high: each run is approved by the operator first, then all run at once.
    const params = { document_id: documentId, amount: 1 };
    const tokens: string[] = [];
    for (let i = 0; i < CONCURRENT + 1; i += 1) {
      const pending = await invoke(clients[i % 2] as AccessClient, 'billing.payment.record', params);
      expect(pending.json.status).toBe('pending_approval');
      await knex('approvals')
        .where({ approval_id: pending.json.approval.approval_id })
        .update({ status: 'approved' });
      tokens.push(pending.json.approval.approval_token);
    }
    const answers = await Promise.all(
      tokens.map((approval_token, index) =>
        invoke(clients[index % 2] as AccessClient, 'billing.payment.record', params, { approval_token }),
      ),
    );
    const succeeded = answers.filter((answer) => answer.json.status === 'succeeded');
    const refused = answers.filter((answer) => answer.status === 409);
    expect(succeeded).toHaveLength(CONCURRENT);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.json.error.message).toMatch(/is paid and takes no payments/);
    const balances = succeeded
      .map((answer) => answer.json.result.next_balance as number)
      .sort((x, y) => x - y);
    expect(balances).toEqual(Array.from({ length: CONCURRENT }, (_, i) => i));
    const row = await knex('billing_documents').where({ id: documentId }).first();
    expect(row).toMatchObject({
      status: 'paid',
      payment_status: 'paid',
      balance: '0.000000',
      paid_total: '20.000000',
    });
    expect(await knex('billing_payments').where({ document_id: documentId })).toHaveLength(CONCURRENT);
  }, 120_000);
});
