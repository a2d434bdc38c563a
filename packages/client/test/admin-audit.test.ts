/**
 * The admin client's audit-log methods against a scripted fetch: the query each filter becomes, the
 * anchor of a verify, and a broken chain answered as a result (not thrown). Over HTTP these routes are
 * tested in apps/gateway/test/audit-chain.test.ts, through the CLI in apps/cli/test/operator-audit.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createAdminClient } from '../src/admin/index.js';

const OPERATOR_KEY = 'agw_ak_AbCdEf123456.operatorsecretvalue0123456789abcdefghij';
const ORG = '5f0e9b3c-0000-4000-8000-000000000000';
const HASH = 'ab'.repeat(32);

function scripted(replies: unknown[]) {
  const urls: string[] = [];
  const fetch = async (url: string) => {
    urls.push(url);
    return new Response(JSON.stringify(replies.shift() ?? {}), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  return {
    urls,
    client: createAdminClient({ baseUrl: 'http://gateway.test', operatorKey: OPERATOR_KEY, fetch }),
  };
}

describe('admin client: audit log', () => {
  it('lists with only the filters given and passes the cursor on', async () => {
    const page = { events: [{ audit_id: 'a1', seq: 7 }], next_cursor: 'c2' };
    const { urls, client } = scripted([page, { events: [], next_cursor: null }]);
    expect(
      await client.listAuditEvents({ organization: ORG, action: 'capability.invoke', limit: 10 }),
    ).toEqual(page);
    await client.listAuditEvents({ outcome: 'denied', cursor: 'c2' });
    expect(urls).toEqual([
      `http://gateway.test/admin/audit?organization=${ORG}&action=capability.invoke&limit=10`,
      'http://gateway.test/admin/audit?outcome=denied&cursor=c2',
    ]);
  });

  it('verifies with and without an anchor; a broken chain is an answer', async () => {
    const broken = {
      ok: false,
      sealed: 9,
      unsealed: 0,
      head: { seq: 9, hash: HASH },
      first_bad: { seq: 4, reason: 'hash_mismatch', message: 'changed', audit_id: 'a4' },
      verified_at: '2026-11-23T10:00:00.000000Z',
    };
    const { urls, client } = scripted([broken, { ...broken, ok: true, first_bad: null }]);
    expect(await client.verifyAuditLog()).toEqual(broken);
    expect((await client.verifyAuditLog({ seq: 9, hash: HASH })).ok).toBe(true);
    expect(urls).toEqual([
      'http://gateway.test/admin/audit/verify',
      `http://gateway.test/admin/audit/verify?anchor_seq=9&anchor_hash=${HASH}`,
    ]);
  });
});
