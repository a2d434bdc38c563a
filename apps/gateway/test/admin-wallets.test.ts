import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { rollUpCharges } from '../src/ports/wallet-rollup.js';
import type { Answer } from './helpers/access-client.js';
import { adminFetch } from './helpers/admin-fixtures.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { unrolledCharges } from './helpers/ledger.js';

// A paid read (0.5 credits) so the billing guard has something to judge against the caps.
const paid = demoCapability({ id: 'demo.paid.read', cost_credits: '0.5' }, async () => ({ ok: true }));
const gateway = useGateway(withCapabilities(paid));

let key: string;
let org: string;
beforeAll(async () => {
  ({ key, organizationId: org } = await approvedInstallation(gateway));
});

const invoke = (): Promise<Answer> =>
  gateway.client.post('/mcp/invoke', { id: 'demo.paid.read', params: {} }, { idem: null, key });

const freeRead = (): Promise<Answer> =>
  gateway.client.post('/mcp/invoke', { id: 'core.org.current.get', params: {} }, { idem: null, key });

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${gateway.operatorKey}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer['json'],
  };
}

describe('admin wallets', () => {
  it('shows an empty wallet as balance 0 in credits with zero spend', async () => {
    const answer = await call('GET', `/admin/wallets/${org}`);
    expect(answer.status).toBe(200);
    expect(answer.body.wallet).toMatchObject({
      organization_id: org,
      currency: 'credits',
      balance_credits: '0',
      spent: { hour_credits: '0', today_credits: '0', month_credits: '0' },
      ledger: [],
    });
  });

  it('credits exact decimals as an audited ledger row, and a paid invoke then shows as spend', async () => {
    const credit = await call('POST', `/admin/wallets/${org}/credit`, { amount: '0.1', memo: 'trial' });
    expect(credit.status).toBe(201);
    expect(credit.body).toMatchObject({ balance_credits: '0.1', replayed: false, memo: 'trial' });
    const second = await call('POST', `/admin/wallets/${org}/credit`, { amount: '0.2' });
    expect(second.body.balance_credits).toBe('0.3');
    const audit = await gateway.knex('audit_events').where({ audit_id: credit.body.audit_id }).first();
    expect(audit).toMatchObject({
      action: 'wallet.credit',
      details: { amount_credits: '0.1', memo: 'trial' },
    });
    await call('POST', `/admin/wallets/${org}/credit`, { amount: '9.7' });
    expect((await invoke()).json).toMatchObject({ status: 'succeeded' });
    const wallet = (await call('GET', `/admin/wallets/${org}`)).body.wallet;
    expect(wallet.balance_credits).toBe('9.5');
    expect(wallet.spent).toEqual({ hour_credits: '0.5', today_credits: '0.5', month_credits: '0.5' });
    expect(wallet.ledger[0]).toMatchObject({
      kind: 'charge',
      amount_credits: '0.5',
      capability_id: 'demo.paid.read',
    });
    expect(wallet.ledger.filter((e: { kind: string }) => e.kind === 'credit')).toHaveLength(3);
  });

  it('lists the 20 newest ledger rows, newest first, rolled up or not', async () => {
    const { organizationId } = await approvedInstallation(gateway);
    // 30 charges a minute apart, each in its own transaction; the first 20 rolled up, the last 10 not
    // yet: the newest 20 mix both.
    const rows = Array.from({ length: 30 }, (_, index) => ({
      organization_id: organizationId,
      amount: '0.01',
      kind: 'charge',
      idempotency_scope: `listing-${randomUUID()}`,
      capability_id: 'demo.paid.read',
      occurred_at: new Date(Date.UTC(2026, 10, 20, 10, index)),
    }));
    for (const row of rows.slice(0, 20)) await gateway.knex('wallet_ledger').insert(row);
    expect(await rollUpCharges(gateway.knex)).toBeGreaterThanOrEqual(20);
    for (const row of rows.slice(20)) await gateway.knex('wallet_ledger').insert(row);
    expect(await unrolledCharges(gateway.knex, organizationId)).toEqual(
      rows.slice(20).map((row) => row.idempotency_scope),
    );
    const ledger = (await call('GET', `/admin/wallets/${organizationId}`)).body.wallet.ledger;
    expect(ledger.map((entry: { occurred_at: string }) => entry.occurred_at)).toEqual(
      rows
        .slice(10)
        .reverse()
        .map((row) => row.occurred_at.toISOString()),
    );
  });

  it('replays a retried credit with the same Idempotency-Key instead of paying twice', async () => {
    const idem = `credit-${randomUUID()}`;
    const before = (await call('GET', `/admin/wallets/${org}`)).body.wallet.balance_credits;
    const first = await call(
      'POST',
      `/admin/wallets/${org}/credit`,
      { amount: '1' },
      { 'Idempotency-Key': idem },
    );
    const retry = await call(
      'POST',
      `/admin/wallets/${org}/credit`,
      { amount: '1' },
      { 'Idempotency-Key': idem },
    );
    expect(first.status).toBe(201);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toMatchObject({ replayed: true, entry: { id: first.body.entry.id } });
    const after = (await call('GET', `/admin/wallets/${org}`)).body.wallet.balance_credits;
    expect(Number(after) - Number(before)).toBeCloseTo(1, 6);
    const other = await call(
      'POST',
      `/admin/wallets/${org}/credit`,
      { amount: '2' },
      { 'Idempotency-Key': idem },
    );
    expect(other.status).toBe(409);
    expectEnvelope(other.body, 'conflict');
  });

  it.each([
    ['-1', '/amount'],
    ['0', '/amount'],
    ['0.0000001', '/amount'],
    ['1e3', '/amount'],
    ['1000000000000', '/amount'],
  ])('refuses the amount %s with 400 and a schema_pointer', async (amount, pointer) => {
    const answer = await call('POST', `/admin/wallets/${org}/credit`, { amount });
    expect(answer.status).toBe(400);
    expect(expectEnvelope(answer.body, 'validation_failed').schema_pointer).toBe(pointer);
  });

  it('refuses a number amount and unknown fields, and 404s an unknown organization', async () => {
    expect((await call('POST', `/admin/wallets/${org}/credit`, { amount: 1 })).status).toBe(400);
    expect((await call('POST', `/admin/wallets/${org}/credit`, { amount: '1', extra: 1 })).status).toBe(400);
    const unknown = await call('POST', `/admin/wallets/${randomUUID()}/credit`, { amount: '1' });
    expect(unknown.status).toBe(404);
    expectEnvelope(unknown.body, 'not_found');
    expect((await call('GET', `/admin/wallets/${randomUUID()}`)).status).toBe(404);
    expect((await call('GET', '/admin/wallets/nope')).status).toBe(404);
    expect((await adminFetch(`${gateway.url}/admin/wallets/${org}`, key)).status).toBe(403);
  });
});

describe('admin policies', () => {
  it('shows no caps by default, sets and clears caps (audited, a repeat is changed:false)', async () => {
    const shown = await call('GET', `/admin/policies/${org}`);
    expect(shown.body.policy).toMatchObject({
      task_cap_credits: null,
      kill_switch_enabled: false,
      updated_at: null,
    });
    const set = await call('PATCH', `/admin/policies/${org}`, {
      daily_cap_credits: '100.50',
      monthly_cap_credits: '1000',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      changed: true,
      policy: { daily_cap_credits: '100.5', monthly_cap_credits: '1000', task_cap_credits: null },
    });
    const audit = await gateway.knex('audit_events').where({ audit_id: set.body.audit_id }).first();
    expect(audit).toMatchObject({ action: 'policy.set', details: { organization_id: org, changed: true } });
    const repeat = await call('POST', `/admin/policies/${org}`, { daily_cap_credits: '100.5' });
    expect(repeat.body.changed).toBe(false);
    const cleared = await call('PATCH', `/admin/policies/${org}`, {
      daily_cap_credits: null,
      monthly_cap_credits: null,
    });
    expect(cleared.body.policy).toMatchObject({ daily_cap_credits: null, monthly_cap_credits: null });
  });

  it('a task cap below the cost makes the billing guard refuse the invoke (403 with the cap)', async () => {
    await call('POST', `/admin/wallets/${org}/credit`, { amount: '10' });
    await call('PATCH', `/admin/policies/${org}`, { task_cap_credits: '0.25' });
    const refused = await invoke();
    expect(refused.status).toBe(403);
    const error = expectEnvelope(refused.json, 'budget_exceeded');
    expect(error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ cap: 'task_cap', limit_credits: '0.25' })]),
    );
    await call('PATCH', `/admin/policies/${org}`, { task_cap_credits: null });
    expect((await invoke()).json).toMatchObject({ status: 'succeeded' });
  });

  it('the kill switch stops every invoke until it is turned off', async () => {
    // The free read runs first, so the gateway holds the switch's "off" state in its cache.
    expect((await freeRead()).status).toBe(200);
    await call('PATCH', `/admin/policies/${org}`, { kill_switch_enabled: true });
    const stopped = await invoke();
    expect(stopped.status).toBe(403);
    expect(expectEnvelope(stopped.json, 'forbidden').message).toMatch(/kill switch/);
    expect(expectEnvelope((await freeRead()).json, 'forbidden').details).toEqual([
      { reason: 'kill_switch', policy_profile_id: `policy_${org}` },
    ]);
    await call('PATCH', `/admin/policies/${org}`, { kill_switch_enabled: false });
    expect((await invoke()).json).toMatchObject({ status: 'succeeded' });
    expect((await freeRead()).status).toBe(200);
  });

  it('refuses bad caps with 400 and a schema_pointer, an empty patch, and unknown organizations', async () => {
    const negative = await call('PATCH', `/admin/policies/${org}`, { task_cap_credits: '-1' });
    expect(negative.status).toBe(400);
    expect(expectEnvelope(negative.body, 'validation_failed').schema_pointer).toBe('/task_cap_credits');
    const switchText = await call('PATCH', `/admin/policies/${org}`, { kill_switch_enabled: 'on' });
    expect(expectEnvelope(switchText.body, 'validation_failed').schema_pointer).toBe('/kill_switch_enabled');
    expect((await call('PATCH', `/admin/policies/${org}`, {})).status).toBe(400);
    const unknown = await call('PATCH', `/admin/policies/${randomUUID()}`, { task_cap_credits: '1' });
    expect(unknown.status).toBe(404);
    expectEnvelope(unknown.body, 'not_found');
  });
});
