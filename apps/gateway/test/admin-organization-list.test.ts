// Issue 29, build 4: the admin API lists organizations and wallets (balance, spend today, caps, kill
// switch) a page at a time, holding at 10 000 rows, and an approval's answer carries its params masked
// as the console shows them, the estimated cost and the preflight verdict.
import { beforeAll, describe, expect, it } from 'vitest';
import { adminFetch } from './helpers/admin-fixtures.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

const transfer = demoCapability<{ iban: string; amount: string }, { sent: boolean }>(
  {
    id: 'demo.transfer.send',
    risk_level: 'high',
    cost_credits: '0.25',
    input_schema: {
      type: 'object',
      properties: { iban: { type: 'string' }, amount: { type: 'string' } },
      additionalProperties: false,
    },
  },
  async () => ({ sent: true }),
);
const gateway = useGateway(withCapabilities(transfer));
const ORGANIZATIONS = 10_000;
const admin = (path: string) => adminFetch(`${gateway.url}${path}`, gateway.operatorKey);

let key: string;
let organizationId: string;
beforeAll(async () => {
  ({ key, organizationId } = await approvedInstallation(gateway, '100'));
  // 10 000 more organizations in one statement, named so that they sort after the onboarded one.
  await gateway.knex.raw(
    `insert into organizations (name, short_id)
     select 'Tenant ' || lpad(n::text, 5, '0'), 'bulk' || n from generate_series(1, ?) as n`,
    [ORGANIZATIONS],
  );
  await gateway.knex('policy_profiles').insert({
    organization_id: organizationId,
    daily_cap: '40',
    monthly_cap: '500',
    kill_switch: true,
  });
  await gateway.knex('wallet_ledger').insert({
    organization_id: organizationId,
    amount: '2.5',
    kind: 'charge',
    idempotency_scope: 'test:spend-today',
    capability_id: 'demo.transfer.send',
    occurred_at: new Date(),
  });
}, 120_000);

interface Entry {
  id: string;
  name: string;
  wallet: {
    balance_credits: string;
    spent: { today_credits: string };
    policy: { daily_cap_credits: string | null; kill_switch_enabled: boolean };
  };
}

describe('GET /admin/organizations', () => {
  it('pages through all 10 001 organizations by name, each once, with the wallet figures', async () => {
    const seen: Entry[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 40; pages += 1) {
      const answer = await admin(`/admin/organizations?limit=500${cursor ? `&cursor=${cursor}` : ''}`);
      expect(answer.status).toBe(200);
      seen.push(...(answer.body.organizations as Entry[]));
      cursor = answer.body.next_cursor as string | null;
      if (cursor === null) break;
    }
    expect(seen).toHaveLength(ORGANIZATIONS + 1);
    expect(new Set(seen.map((entry) => entry.id)).size).toBe(ORGANIZATIONS + 1);
    const names = seen.map((entry) => entry.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const mine = seen.find((entry) => entry.id === organizationId);
    expect(mine?.wallet).toMatchObject({
      balance_credits: '97.5',
      spent: { today_credits: '2.5' },
      policy: { daily_cap_credits: '40', monthly_cap_credits: '500', kill_switch_enabled: true },
    });
    expect(seen.at(-1)?.name).toBe('Tenant 10000');
  });

  it('refuses a cursor it did not hand out and a limit past 500', async () => {
    expectEnvelope((await admin('/admin/organizations?cursor=bm90LWEtY3Vyc29y')).body, 'invalid_cursor');
    const tooMany = await admin('/admin/organizations?limit=501');
    expect(tooMany.status).toBe(400);
  });

  it('asks for an operator key', async () => {
    const answer = await adminFetch(`${gateway.url}/admin/organizations`, undefined);
    expect(answer.status).toBe(401);
  });
});

describe('GET /admin/wallets', () => {
  it('lists wallets by organization with balance, spend today, caps and kill switch', async () => {
    const answer = await admin('/admin/wallets?limit=2');
    expect(answer.status).toBe(200);
    const wallets = answer.body.wallets as Array<Record<string, unknown>>;
    expect(wallets).toHaveLength(2);
    expect(wallets.find((wallet) => wallet.organization_id === organizationId)).toMatchObject({
      currency: 'credits',
      balance_credits: '97.5',
      spent: { today_credits: '2.5' },
      policy: { daily_cap_credits: '40', kill_switch_enabled: true },
    });
    expect(typeof answer.body.next_cursor).toBe('string');
  });
});

describe('GET /admin/approvals/:id', () => {
  it('answers the params masked as the console shows them, the estimated cost and the preflight verdict', async () => {
    await gateway
      .knex('policy_profiles')
      .where({ organization_id: organizationId })
      .update({ kill_switch: false });
    const invoked = await gateway.client.post(
      '/mcp/invoke',
      { id: 'demo.transfer.send', params: { iban: 'DE89370400440532013000', amount: '1200.00' } },
      { idem: null, key },
    );
    expect(invoked.json.status).toBe('pending_approval');
    const answer = await admin(`/admin/approvals/${invoked.json.approval.approval_id}`);
    expect(answer.status).toBe(200);
    const approval = answer.body.approval as Record<string, unknown>;
    expect(approval.params).toEqual([
      expect.objectContaining({ label: 'iban', value: 'DE89 •••• 3000', masked: true }),
      expect.objectContaining({ label: 'amount', value: '1200.00', masked: false }),
    ]);
    expect(JSON.stringify(answer.body)).not.toContain('DE89370400440532013000');
    expect(approval).toMatchObject({
      risk_level: 'high',
      estimated_cost_credits: '0.25',
      preflight: { verdict: 'none' },
    });
  });
});
