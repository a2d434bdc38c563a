/**
 * Pins @agw/client/admin against a scripted fetch: the method, path, body and Authorization of every
 * admin call, the unwrapped results, GatewayError on error answers, retries only where the call is a
 * state set (never for createOperatorKey), and the operator key absent from errors and debug output.
 * The admin API itself is tested over HTTP in apps/gateway/test/admin*.test.ts.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as adminModule from '../src/admin/index.js';
import { type AdminClient, createAdminClient, GatewayError } from '../src/admin/index.js';
import type { DebugEvent } from '../src/index.js';

const OPERATOR_KEY = 'agw_ak_AbCdEf123456.operatorsecretvalue0123456789abcdefghij';
const SECRET = 'operatorsecretvalue0123456789abcdefghij';

interface Seen {
  method: string;
  url: string;
  authorization: string | null;
  body: unknown;
}

function scripted(replies: Array<{ status: number; body: unknown }>) {
  const seen: Seen[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    seen.push({
      method: String(init.method),
      url,
      authorization: headers.get('authorization'),
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    const reply = replies.shift() ?? { status: 200, body: {} };
    return new Response(JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-1' },
    });
  };
  return { seen, fetch };
}

const errorBody = (code: string, retryable = false) => ({
  error: {
    code,
    message: `failed: ${code} for ${OPERATOR_KEY}`,
    retryable,
    audit_id: 'audit-1',
    hint: 'do this',
  },
});

function client(
  fetch: ReturnType<typeof scripted>['fetch'],
  debug?: (event: DebugEvent) => void,
): AdminClient {
  return createAdminClient({
    baseUrl: 'http://gateway.test/',
    operatorKey: OPERATOR_KEY,
    fetch,
    ...(debug ? { debug } : {}),
  });
}

describe('createAdminClient', () => {
  it('@agw/client/admin exports exactly these runtime values', () => {
    expect(Object.keys(adminModule).sort()).toEqual(['ConnectionError', 'GatewayError', 'createAdminClient']);
  });

  it('sends each call to its endpoint with the operator key and unwraps the answer', async () => {
    const { seen, fetch } = scripted([
      { status: 200, body: { installations: [{ id: 'i1' }] } },
      { status: 200, body: { installation: { id: 'i1' } } },
      { status: 200, body: { changed: true } },
      { status: 200, body: { changed: true } },
      { status: 200, body: { changed: true } },
      { status: 200, body: { changed: false } },
      { status: 200, body: { mode: 'open' } },
      { status: 200, body: { mode: 'invite_only' } },
      { status: 201, body: { created: true } },
      { status: 200, body: { invites: [] } },
      { status: 200, body: { suppressions: [{ email: 'a@b.c' }] } },
      { status: 201, body: { created: true } },
      { status: 200, body: { removed: true } },
      { status: 200, body: { operator_keys: [] } },
      { status: 200, body: { key: { prefix: 'ZZZZZZZZZZZZ' } } },
    ]);
    const admin = client(fetch);
    expect(await admin.listInstallations({ status: 'pending', limit: 5 })).toEqual([{ id: 'i1' }]);
    expect(await admin.getInstallation('i1')).toEqual({ id: 'i1' });
    await admin.approveInstallation('i1');
    await admin.blockInstallation('i1');
    await admin.activateOrganization('o/1');
    await admin.deactivateOrganization('o1');
    expect(await admin.getAccessMode()).toBe('open');
    await admin.setAccessMode('invite_only');
    await admin.invite('owner@example.com');
    expect(await admin.listInvites()).toEqual([]);
    expect(await admin.listMailSuppressions()).toEqual([{ email: 'a@b.c' }]);
    await admin.suppressMail('a@b.c', 'bounce');
    await admin.unsuppressMail('a@b.c');
    expect(await admin.listOperatorKeys()).toEqual([]);
    expect(await admin.revokeOperatorKey('ZZZZZZZZZZZZ')).toEqual({ prefix: 'ZZZZZZZZZZZZ' });

    expect(
      seen.map((request) => `${request.method} ${request.url.replace('http://gateway.test', '')}`),
    ).toEqual([
      'GET /admin/installations?status=pending&limit=5',
      'GET /admin/installations/i1',
      'POST /admin/installations/i1/approve',
      'POST /admin/installations/i1/block',
      'POST /admin/organizations/o%2F1/activate',
      'POST /admin/organizations/o1/deactivate',
      'GET /admin/access',
      'POST /admin/access',
      'POST /admin/access/invites',
      'GET /admin/access/invites',
      'GET /admin/mail-suppressions',
      'POST /admin/mail-suppressions',
      'POST /admin/mail-suppressions/remove',
      'GET /admin/operator-keys',
      'POST /admin/operator-keys/ZZZZZZZZZZZZ/revoke',
    ]);
    expect(seen.every((request) => request.authorization === `Bearer ${OPERATOR_KEY}`)).toBe(true);
    expect(seen[7]?.body).toEqual({ mode: 'invite_only' });
    expect(seen[11]?.body).toEqual({ email: 'a@b.c', reason: 'bounce' });
  });

  it('throws GatewayError with the envelope fields and without the key', async () => {
    const { fetch } = scripted([{ status: 409, body: errorBody('conflict') }]);
    const events: DebugEvent[] = [];
    const error = await client(fetch, (event) => events.push(event))
      .approveInstallation('i1')
      .catch((caught: unknown) => caught);
    expect(GatewayError.isGatewayError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'conflict', status: 409, hint: 'do this', auditId: 'audit-1' });
    const rendered = [
      String(error),
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
      JSON.stringify(events),
    ].join('\n');
    expect(rendered).not.toContain(SECRET);
    expect(events[0]?.headers?.Authorization).toBe('[redacted]');
  });

  it('retries a retryable failure of a state set, but never createOperatorKey', async () => {
    const retried = scripted([
      {
        status: 503,
        body: { error: { ...errorBody('dependency_unavailable', true).error, retry_after_seconds: 0 } },
      },
      { status: 200, body: { changed: true } },
    ]);
    expect(await client(retried.fetch).approveInstallation('i1')).toEqual({ changed: true });
    expect(retried.seen).toHaveLength(2);

    const once = scripted([
      {
        status: 503,
        body: { error: { ...errorBody('dependency_unavailable', true).error, retry_after_seconds: 0 } },
      },
      { status: 201, body: { token: 'second' } },
    ]);
    await expect(client(once.fetch).createOperatorKey({ label: 'x' })).rejects.toMatchObject({ status: 503 });
    expect(once.seen).toHaveLength(1);
    expect(once.seen[0]?.body).toEqual({ label: 'x' });
  });

  it('keeps the key off the client object and rejects bad options', () => {
    const { fetch } = scripted([]);
    expect(inspect(client(fetch), { depth: 5 })).not.toContain(SECRET);
    expect(() => createAdminClient({ baseUrl: 'gateway.test', operatorKey: OPERATOR_KEY })).toThrow(
      TypeError,
    );
    expect(() => createAdminClient({ baseUrl: 'http://gateway.test', operatorKey: '' })).toThrow(TypeError);
  });
});
