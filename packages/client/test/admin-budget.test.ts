/**
 * The admin client's run-approval, wallet and policy methods against a scripted fetch: method, path,
 * query and body of each call, and a wallet credit retried with the same Idempotency-Key (a credit is
 * not a state set, so the key is what keeps a retry from paying twice). Over HTTP these routes are
 * tested in apps/gateway/test/admin-approvals.test.ts and admin-wallets.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createAdminClient } from '../src/admin/index.js';

const OPERATOR_KEY = 'agw_ak_AbCdEf123456.operatorsecretvalue0123456789abcdefghij';
const ORG = '5f0e9b3c-0000-4000-8000-000000000000';

function scripted(replies: Array<{ status: number; body: unknown }>) {
  const seen: Array<{ method: string; url: string; idempotencyKey: string | null; body: unknown }> = [];
  const fetch = async (url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    seen.push({
      method: String(init.method),
      url,
      idempotencyKey: headers.get('idempotency-key'),
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    const reply = replies.shift() ?? { status: 200, body: {} };
    return new Response(JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { seen, fetch };
}

const admin = (fetch: ReturnType<typeof scripted>['fetch']) =>
  createAdminClient({ baseUrl: 'http://gateway.test', operatorKey: OPERATOR_KEY, fetch, maxRetries: 2 });

describe('admin client: approvals, wallets, policies', () => {
  it('sends each call to its endpoint and unwraps the answer', async () => {
    const { seen, fetch } = scripted([
      { status: 200, body: { approvals: [{ approval_id: 'a1' }] } },
      { status: 200, body: { approval: { approval_id: 'a1' } } },
      { status: 200, body: { changed: true } },
      { status: 200, body: { changed: true, reason: 'no' } },
      { status: 200, body: { wallet: { balance_credits: '1' } } },
      { status: 200, body: { policy: { kill_switch_enabled: true } } },
      { status: 200, body: { changed: true } },
    ]);
    const client = admin(fetch);
    expect(await client.listApprovals({ status: 'all', organization: ORG, limit: 5 })).toEqual([
      { approval_id: 'a1' },
    ]);
    expect(await client.getApproval('a1')).toEqual({ approval_id: 'a1' });
    await client.approveApproval('a1');
    await client.denyApproval('a1', 'no');
    expect((await client.getWallet(ORG)).balance_credits).toBe('1');
    expect((await client.getPolicy(ORG)).kill_switch_enabled).toBe(true);
    await client.setPolicy(ORG, { task_cap_credits: null, daily_cap_credits: '10' });
    expect(seen.map(({ method, url, body }) => [method, url, body])).toEqual([
      ['GET', `http://gateway.test/admin/approvals?status=all&organization=${ORG}&limit=5`, undefined],
      ['GET', 'http://gateway.test/admin/approvals/a1', undefined],
      ['POST', 'http://gateway.test/admin/approvals/a1/approve', {}],
      ['POST', 'http://gateway.test/admin/approvals/a1/deny', { reason: 'no' }],
      ['GET', `http://gateway.test/admin/wallets/${ORG}`, undefined],
      ['GET', `http://gateway.test/admin/policies/${ORG}`, undefined],
      [
        'POST',
        `http://gateway.test/admin/policies/${ORG}`,
        { task_cap_credits: null, daily_cap_credits: '10' },
      ],
    ]);
  });

  it('retries a credit after a 503 with the same Idempotency-Key, and a new call gets a new key', async () => {
    const { seen, fetch } = scripted([
      { status: 503, body: { error: { code: 'service_unavailable', message: 'x', retryable: true } } },
      { status: 201, body: { replayed: false, balance_credits: '2.5' } },
      { status: 201, body: { replayed: false, balance_credits: '5' } },
    ]);
    const client = admin(fetch);
    const credit = await client.creditWallet(ORG, { amount: '2.5', memo: 'trial' });
    expect(credit.balance_credits).toBe('2.5');
    await client.creditWallet(ORG, { amount: '2.5' }, { idempotencyKey: 'chosen-key-0123456789' });
    expect(seen).toHaveLength(3);
    expect(seen[0]?.body).toEqual({ amount: '2.5', memo: 'trial' });
    expect(seen[0]?.idempotencyKey).toMatch(/^credit-[0-9a-f-]{36}$/);
    expect(seen[1]?.idempotencyKey).toBe(seen[0]?.idempotencyKey);
    expect(seen[2]?.idempotencyKey).toBe('chosen-key-0123456789');
  });
});
