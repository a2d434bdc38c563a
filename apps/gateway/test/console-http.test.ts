// The operator console over HTTP (runs on PGlite and on PostgreSQL): forged posts, installation keys,
// sessions stored as hashes, sign-out, the sign-in rate limit; the approvals queue paged and filtered
// through 10 000 waiting approvals, the preflight verdict judged when the page is shown, the audited
// reveal of a masked value; the budget policy and a replayed credit; audit filters, a record's guard
// trace and the chain's verification; the mail page. The browser's side is test/console.test.ts.
import { createHash } from 'node:crypto';
import { createClient } from '@agw/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMIT } from '../src/console/routes.js';
import { adminFetch, insertKey } from './helpers/admin-fixtures.js';
import {
  consolePage,
  IBAN,
  openInvoice,
  postForm,
  signIn,
  waitingBankAccountChange,
} from './helpers/console.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
const form = (fields: Record<string, string>) => ({
  method: 'POST',
  redirect: 'manual' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** The HTML of the approval card of `approvalId` on a page. */
const cardOf = (html: string, approvalId: string) =>
  html.split('<article').find((card) => card.includes(`/console/approvals/${approvalId}/decide`)) ?? '';

/** The approvals page of a session (its HTML and the CSRF token of its forms). */
const approvalsPage = (session: string, query = '') =>
  consolePage(gateway, session, `/console/approvals${query}`);

// Before the sign-in limit test below uses up this address's attempts: two sign-ins here.
describe('a console session ends', () => {
  const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');
  const age = (token: string, idle: string, absolute: string) =>
    gateway
      .knex('console_sessions')
      .where({ token_hash: tokenHash(token) })
      .update({
        idle_expires_at: gateway.knex.raw(`now() + interval '${idle}'`),
        absolute_expires_at: gateway.knex.raw(`now() + interval '${absolute}'`),
      });
  const expectSignInAgain = async (session: string) => {
    const page = await approvalsPage(session);
    expect(page.response.status).toBe(303);
    expect(page.response.headers.get('location')).toBe('/console?expired=1');
  };

  it('sends no script, no frame and nothing a cache keeps', async () => {
    const session = (await signIn(gateway, gateway.operatorKey)).session ?? '';
    const { response } = await approvalsPage(session);
    expect(response.status).toBe(200);
    const csp = (response.headers.get('content-security-policy') ?? '').split(/;\s*/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp.some((directive) => directive.startsWith('script-src'))).toBe(false);
    expect(response.headers.get('cache-control')).toBe('no-store');

    // 30 minutes idle, or 12 hours after sign-in however busy: either sends the operator to sign in.
    await age(session, '-1 second', '1 hour');
    await expectSignInAgain(session);
    await age(session, '10 minutes', '-1 second');
    await expectSignInAgain(session);
    await age(session, '10 minutes', '1 hour');
    expect((await approvalsPage(session)).response.status).toBe(200);
  });

  it('ends with its operator key', async () => {
    const created = await adminFetch(`${gateway.url}/admin/operator-keys`, gateway.operatorKey, {
      body: { label: 'console session test' },
    });
    expect(created.status).toBe(201);
    const { token, key } = created.body as { token: string; key: { prefix: string } };
    const session = (await signIn(gateway, token)).session ?? '';
    expect((await approvalsPage(session)).response.status).toBe(200);
    const revoked = await adminFetch(
      `${gateway.url}/admin/operator-keys/${key.prefix}/revoke`,
      gateway.operatorKey,
      { method: 'POST' },
    );
    expect(revoked.status).toBe(200);
    await expectSignInAgain(session);
  });
});

describe('the console behind an https PUBLIC_BASE_URL', () => {
  // TLS may end at a proxy in front: the public URL alone marks the cookies Secure.
  const secure = useGateway({ env: { PUBLIC_BASE_URL: 'https://console.example.test' } });

  it('marks the session and sign-in cookies Secure', async () => {
    const form = await fetch(`${secure.url}/console`);
    expect(form.headers.getSetCookie().find((c) => c.startsWith('agw_console_sign_in='))).toMatch(/; Secure/);
    const { response } = await signIn(secure, secure.operatorKey);
    expect(response.status).toBe(303);
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith('agw_console=')) ?? '';
    expect(cookie).toMatch(/; Path=\/console; HttpOnly; SameSite=Strict; Secure/);
  });
});

describe('the console over HTTP', () => {
  let session: string;
  beforeAll(async () => {
    const { response, session: cookie } = await signIn(gateway, gateway.operatorKey);
    expect(response.status).toBe(303);
    session = cookie ?? '';
  });

  it('keeps only a hash of the session token, in an HttpOnly, SameSite=Strict cookie scoped to /console', async () => {
    const { response, session: token } = await signIn(gateway, gateway.operatorKey);
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith('agw_console=')) ?? '';
    expect(cookie).toMatch(/; Path=\/console; HttpOnly; SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/); // plain http on loopback here
    const rows = await gateway.knex('console_sessions').select('token_hash');
    expect(rows.map((row) => row.token_hash)).toContain(
      createHash('sha256')
        .update(token ?? '')
        .digest('hex'),
    );
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a forged decision without the CSRF token, and the approval stays waiting', async () => {
    const { approval } = await waitingBankAccountChange(gateway);
    const forged = await fetch(`${gateway.url}/console/approvals/${approval.approval_id}/decide`, {
      ...form({ decision: 'approve' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `agw_console=${session}` },
    });
    expect(forged.status).toBe(403);
    expect((await forged.json()).error.code).toBe('forbidden');
    const otherSession = (await signIn(gateway, gateway.operatorKey)).session ?? '';
    const { csrf: otherCsrf } = await approvalsPage(otherSession);
    const crossed = await fetch(`${gateway.url}/console/approvals/${approval.approval_id}/decide`, {
      ...form({ decision: 'approve', csrf: otherCsrf }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `agw_console=${session}` },
    });
    expect(crossed.status).toBe(403);
    const row = await gateway.knex('approvals').where({ approval_id: approval.approval_id }).first();
    expect(row.status).toBe('pending');

    // The console's own form, with the token, decides it.
    const { csrf } = await approvalsPage(session);
    const denied = await fetch(`${gateway.url}/console/approvals/${approval.approval_id}/decide`, {
      ...form({ decision: 'deny', csrf, note: 'not our account' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `agw_console=${session}` },
    });
    expect(denied.status).toBe(303);
    expect(denied.headers.get('location')).toBe('/console/approvals?done=denied');
    expect(
      (await gateway.knex('approvals').where({ approval_id: approval.approval_id }).first()).status,
    ).toBe('denied');
  });

  it('refuses an agent’s installation key at sign-in and as a bearer', async () => {
    const agent = await approvedInstallation(gateway);
    const { response, session: cookie } = await signIn(gateway, agent.key);
    expect(response.status).toBe(403);
    expect(cookie).toBeUndefined();
    expect(await response.text()).toContain('only a live operator key can');
    const bearer = await fetch(`${gateway.url}/console/approvals`, {
      redirect: 'manual',
      headers: { authorization: `Bearer ${agent.key}` },
    });
    expect(bearer.status).toBe(303);
    expect(bearer.headers.get('location')).toBe('/console');
    const failed = await gateway
      .knex('audit_events')
      .where({ action: 'console.sign_in', outcome: 'failed' })
      .orderBy('occurred_at', 'desc')
      .first();
    expect(failed.details.code).toBe('forbidden');
    expect(JSON.stringify(failed.details)).not.toContain(agent.key.split('.')[1]);
  });

  it('ends the session at sign-out, and its cookie opens nothing afterwards', async () => {
    const revoked = await insertKey(gateway.knex, 'operator', { revoked: true });
    expect((await signIn(gateway, revoked)).response.status).toBe(401);
    const own = (await signIn(gateway, gateway.operatorKey)).session ?? '';
    const { csrf } = await approvalsPage(own);
    const out = await fetch(`${gateway.url}/console/sign-out`, {
      ...form({ csrf }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `agw_console=${own}` },
    });
    expect(out.status).toBe(303);
    const after = await approvalsPage(own);
    expect(after.response.status).toBe(303);
    expect(after.response.headers.get('location')).toBe('/console?expired=1');
  });

  it('pages through 10 000 waiting approvals oldest first, by keyset', async () => {
    const agent = await approvedInstallation(gateway);
    await gateway.knex.raw(
      `insert into approvals (token_hash, organization_id, installation_id, capability_id, capability_version,
                              params_hash, reason, created_at, expires_at)
       select 'bulk-' || n, ?, ?, 'billing.payment.record', '1.0.0', 'hash-' || n, 'risk high',
              now() - interval '1 day' + n * interval '1 second', now() + interval '1 day'
         from generate_series(1, 10000) as n`,
      [agent.organizationId, agent.installationId],
    );
    const ids = (html: string) =>
      [...html.matchAll(/action="\/console\/approvals\/([0-9a-f-]{36})\/decide"/g)].map((m) => m[1]);
    const hashes = (html: string) => [...html.matchAll(/<code>(hash-\d+)<\/code>/g)].map((m) => m[1]);
    const first = await approvalsPage(session);
    expect(hashes(first.html).slice(0, 3)).toEqual(['hash-1', 'hash-2', 'hash-3']);
    const next = first.html.match(/href="\/console\/approvals\?after=([^"]+)" rel="next"/)?.[1] ?? '';
    const second = await approvalsPage(session, `?after=${next}`);
    expect(hashes(second.html)[0]).toBe(`hash-${hashes(first.html).length + 1}`);
    expect(ids(second.html).some((id) => ids(first.html).includes(id))).toBe(false);
    // A cursor deep in the queue answers its page directly, the last one without a next link.
    const deep = await gateway.knex.raw(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || approval_id as cursor
         from approvals where params_hash = 'hash-9990'`,
    );
    const last = await approvalsPage(session, `?after=${encodeURIComponent(deep.rows[0].cursor)}`);
    expect(hashes(last.html)).toEqual(Array.from({ length: 10 }, (_, i) => `hash-${9991 + i}`));
    expect(last.html).not.toContain('rel="next"');

    // Filters hold among them: another organization's three, and a capability, each with its own pages.
    const other = await approvedInstallation(gateway);
    await gateway.knex.raw(
      `insert into approvals (token_hash, organization_id, installation_id, capability_id, capability_version,
                              params_hash, reason, created_at, expires_at)
       select 'other-' || n, ?, ?, 'billing.document.void', '1.0.0', 'other-' || n, 'risk high',
              now() - interval '2 days' + n * interval '1 second', now() + interval '1 day'
         from generate_series(1, 3) as n`,
      [other.organizationId, other.installationId],
    );
    const byOrganization = await approvalsPage(session, `?organization=${other.organizationId}`);
    expect(hashes(byOrganization.html)).toEqual([]);
    expect([...byOrganization.html.matchAll(/<code>(other-\d)<\/code>/g)].map((m) => m[1])).toEqual([
      'other-1',
      'other-2',
      'other-3',
    ]);
    expect(byOrganization.html).not.toContain('rel="next"');
    const byCapability = await approvalsPage(
      session,
      `?organization=${agent.organizationId}&capability=billing.payment.record`,
    );
    expect(hashes(byCapability.html).slice(0, 2)).toEqual(['hash-1', 'hash-2']);
    const following =
      byCapability.html.match(/href="([^"]+)" rel="next"/)?.[1]?.replaceAll('&#38;', '&') ?? '';
    expect(following).toContain(`organization=${agent.organizationId}`);
    expect(following).toContain('capability=billing.payment.record');
    expect(hashes((await consolePage(gateway, session, following)).html)[0]).toBe('hash-26');
    expect((await approvalsPage(session, '?organization=not-an-id')).response.status).toBe(400);
  });

  it('limits sign-in attempts per address: past the limit even the right key waits', async () => {
    let answer: Response | undefined;
    for (let attempt = 0; attempt <= SIGN_IN_LIMIT.limit; attempt += 1) {
      answer = (await signIn(gateway, 'agw_ak_wrongwrongwr.nope')).response;
      if (answer.status === 429) break;
    }
    expect(answer?.status).toBe(429);
    const right = await signIn(gateway, gateway.operatorKey);
    expect(right.response.status).toBe(429);
    expect(Number(right.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.session).toBeUndefined();
  });

  it('judges each waiting payment’s preflight when the page is shown: once the first ran, the second would be refused', async () => {
    const invoice = await openInvoice(gateway);
    const full = await invoice.payment(58.31);
    const part = await invoice.payment(30);
    const only = `?organization=${invoice.agent.organizationId}`;
    const before = await approvalsPage(session, only);
    expect(cardOf(before.html, full.approval_id)).toContain('Would succeed');
    expect(cardOf(before.html, full.approval_id)).toMatch(/<th scope="row">amount<\/th><td>58.31<\/td>/);
    expect(cardOf(before.html, part.approval_id)).toContain('Would succeed');

    const decided = await postForm(gateway, session, `/console/approvals/${full.approval_id}/decide`, {
      csrf: before.csrf,
      decision: 'approve',
    });
    expect(decided.status).toBe(303);
    const run = await invoice.client.invoke(
      'billing.payment.record',
      { ...invoice.params, amount: 58.31 },
      { approvalToken: full.approval_token },
    );
    expect(run.status).toBe('succeeded');

    const after = cardOf((await approvalsPage(session, only)).html, part.approval_id);
    expect(after).toContain('Would be refused now');
    expect(after).toMatch(/\/params\/document_id: Invoice \S+ is paid and takes no payments/);
    expect(after).not.toContain('Would succeed');
  });

  it('reveals a masked IBAN once on a CSRF-checked post, and audits who saw which field, never the value', async () => {
    const { agent, approval } = await waitingBankAccountChange(gateway);
    const path = `/console/approvals/${approval.approval_id}/reveal`;
    const { html, csrf } = await approvalsPage(session, `?organization=${agent.organizationId}`);
    expect(html).toContain(`action="${path}"`);
    expect(html).not.toContain('0532');
    expect((await postForm(gateway, session, path, { field: 'iban' })).status).toBe(403);

    const shown = await postForm(gateway, session, path, { csrf, field: 'iban' });
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(await shown.text()).toContain(IBAN);
    const audit = await gateway
      .knex('audit_events')
      .where({ action: 'approval.reveal' })
      .whereRaw("details->>'approval_id' = ?", [approval.approval_id])
      .first();
    expect(audit.actor).toMatch(/^operator:/);
    expect(audit.details).toMatchObject({
      field: 'iban',
      via: 'console',
      organization_id: agent.organizationId,
    });
    expect(JSON.stringify(audit.details)).not.toContain('0532');
    // A field that is not masked has nothing to reveal; the page itself still masks the IBAN.
    expect((await postForm(gateway, session, path, { csrf, field: 'account_holder' })).status).toBe(404);
    expect((await approvalsPage(session, `?organization=${agent.organizationId}`)).html).not.toContain(
      '0532',
    );
  });

  it('blocks an installation from its page: the agent’s next invoke is refused', async () => {
    const agent = await approvedInstallation(gateway);
    const client = createClient({ baseUrl: gateway.url, apiKey: agent.key, maxRetries: 0 });
    expect((await client.invoke('billing.account.search', {})).status).toBe('succeeded');
    const page = await consolePage(
      gateway,
      session,
      `/console/installations?organization=${agent.organizationId}`,
    );
    expect(page.html).toContain(`/console/installations/${agent.installationId}/decide`);
    const blocked = await postForm(
      gateway,
      session,
      `/console/installations/${agent.installationId}/decide`,
      {
        csrf: page.csrf,
        decision: 'block',
      },
    );
    expect(blocked.status).toBe(303);
    await expect(client.invoke('billing.account.search', {})).rejects.toMatchObject({
      code: 'installation_blocked',
    });
    const shown = await consolePage(
      gateway,
      session,
      `/console/installations?status=blocked&organization=${agent.organizationId}`,
    );
    expect(shown.html).toContain(agent.installationId);
  });

  it('saves caps and the kill switch from the organization page; a resubmitted credit form pays once', async () => {
    const agent = await approvedInstallation(gateway);
    const path = `/console/organizations/${agent.organizationId}`;
    const page = await consolePage(gateway, session, path);
    const key = page.html.match(/name="idempotency_key" value="([^"]+)"/)?.[1] ?? '';
    for (const _attempt of [1, 2]) {
      const credited = await postForm(gateway, session, `${path}/credit`, {
        csrf: page.csrf,
        idempotency_key: key,
        amount: '12.5',
      });
      expect(credited.status).toBe(303);
    }
    expect((await consolePage(gateway, session, path)).html).toMatch(/id="balance">12\.5 credits/);

    const policy = {
      task_cap_credits: '',
      daily_cap_credits: '5',
      monthly_cap_credits: '',
      burn_rate_hourly_cap_credits: '',
    };
    const saved = await postForm(gateway, session, `${path}/policy`, {
      csrf: page.csrf,
      ...policy,
      kill_switch: 'on',
    });
    expect(saved.status).toBe(303);
    const profile = await gateway
      .knex('policy_profiles')
      .where({ organization_id: agent.organizationId })
      .first();
    expect(Number(profile.daily_cap)).toBe(5);
    expect(profile.task_cap).toBeNull();
    expect(profile.kill_switch).toBe(true);
    const list = await consolePage(gateway, session, '/console/organizations');
    expect(list.response.status).toBe(200);
    const refused = await postForm(gateway, session, `${path}/policy`, {
      csrf: page.csrf,
      ...policy,
      daily_cap_credits: 'lots',
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('The policy was not saved');
    const audit = await gateway
      .knex('audit_events')
      .where({ action: 'policy.set' })
      .whereRaw("details->>'organization_id' = ?", [agent.organizationId])
      .first();
    expect(audit.details).toMatchObject({
      via: 'console',
      patch: { daily_cap_credits: '5', kill_switch_enabled: true },
    });
  });

  it('filters the audit trail, opens a record with its guard trace, and verifies the chain', async () => {
    const { agent } = await waitingBankAccountChange(gateway);
    const filtered = (query: string) =>
      consolePage(
        gateway,
        session,
        `/console/audit?installation=${agent.installationId}&capability=billing.bank_account.save&${query}`,
      );
    const records = (html: string) =>
      [...html.matchAll(/href="\/console\/audit\/([^"/]+)"/g)].map((m) => m[1]);
    const waiting = await filtered('outcome=pending_approval');
    expect(records(waiting.html)).toHaveLength(1);
    expect(records((await filtered('outcome=succeeded')).html)).toHaveLength(0);
    expect(records((await filtered('outcome=pending_approval&since=2099-01-01T00:00')).html)).toHaveLength(0);
    const record = await consolePage(gateway, session, `/console/audit/${records(waiting.html)[0]}`);
    expect(record.html).toContain('Guard trace');
    expect(record.html).toMatch(/<td>installation_key<\/td><td>check<\/td><td class="outcome-pass">pass/);
    const verified = await consolePage(gateway, session, '/console/audit/verify');
    expect(verified.html).toContain('The chain verifies');
  });

  it('lists the outbox by status with its failures, and the suppressed addresses', async () => {
    await gateway.knex('mail_outbox').insert({
      to_address: 'gone@example.com',
      subject: 'Your owner code',
      status: 'failed',
      attempts: 5,
      last_error: '550 mailbox unavailable',
    });
    await gateway
      .knex('mail_suppressions')
      .insert({ email: 'bounced@example.com', reason: 'bounce', created_by: 'operator:test' });
    const failed = await consolePage(gateway, session, '/console/mail?status=failed');
    expect(failed.html).toContain('gone@example.com');
    expect(failed.html).toContain('550 mailbox unavailable');
    expect(failed.html).toContain('bounced@example.com');
    const sent = await consolePage(gateway, session, '/console/mail?status=sent');
    expect(sent.html).not.toContain('gone@example.com');
    expect(sent.html).toMatch(/<td class="status-sent">/);
  });
});
