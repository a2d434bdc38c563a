// The operator console (issue 29, first slice): an operator signs in with an operator key, sees what a
// waiting call would do (its params with the IBAN masked, its cost and risk), approves it, and the
// agent's invoke with its token runs. In Debian's chromium: by keyboard, at phone width, checked by
// axe-core. Over HTTP: forged posts, installation keys, sessions stored as hashes, sign-out, paging
// through 10 000 waiting approvals, and the sign-in rate limit.
import { createHash } from 'node:crypto';
import { createClient } from '@agw/client';
import AxeBuilder from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMIT } from '../src/console/routes.js';
import { insertKey } from './helpers/admin-fixtures.js';
import { browserUnavailable, launchBrowser } from './helpers/browser.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
const IBAN = 'DE89 3704 0044 0532 0130 00';
const bankAccount = {
  display_name: 'Main account',
  account_holder: 'Acme Prüftechnik GmbH',
  iban: IBAN,
  bic: 'COBADEFFXXX',
};

/** An agent whose bank account change waits for the operator; its client and the approval. */
async function waitingBankAccountChange() {
  const agent = await approvedInstallation(gateway);
  const client = createClient({ baseUrl: gateway.url, apiKey: agent.key, maxRetries: 0 });
  const answer = await client.invoke('billing.bank_account.save', bankAccount);
  expect(answer.status).toBe('pending_approval');
  const approval = answer.approval as { approval_id: string; approval_token: string };
  return { agent, client, approval };
}

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);
const csrfIn = (html: string) => html.match(/name="csrf" value="([^"]+)"/)?.[1] ?? '';
const form = (fields: Record<string, string>) => ({
  method: 'POST',
  redirect: 'manual' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** Signs in over HTTP as a browser would; the sign-in answer and the session cookie. */
async function signIn(key: string) {
  const page = await fetch(`${gateway.url}/console`);
  const preCookie = cookieOf(page, 'agw_console_sign_in') ?? '';
  const response = await fetch(`${gateway.url}/console/sign-in`, {
    ...form({ csrf: csrfIn(await page.text()), operator_key: key }),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `agw_console_sign_in=${preCookie}`,
    },
  });
  return { response, session: cookieOf(response, 'agw_console') };
}

/** The approvals page of a session (its HTML and the CSRF token of its forms). */
async function approvalsPage(session: string, query = '') {
  const response = await fetch(`${gateway.url}/console/approvals${query}`, {
    redirect: 'manual',
    headers: { cookie: `agw_console=${session}` },
  });
  const html = await response.text();
  return { response, html, csrf: csrfIn(html) };
}

describe.skipIf(browserUnavailable)(`the console in chromium ${browserUnavailable ?? ''}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('signs in with the operator key, shows the waiting change with its IBAN masked, approves it, and the agent’s invoke runs', async () => {
    const { client, approval } = await waitingBankAccountChange();
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    // What the page lacks fails in seconds, not at the test's timeout.
    page.setDefaultTimeout(10_000);
    await page.goto(`${gateway.url}/console`);
    expect((await new AxeBuilder({ page }).analyze()).violations.filter(serious)).toEqual([]);

    // By keyboard only: the key field, Enter.
    await page.getByLabel('Operator key').focus();
    await page.keyboard.type(gateway.operatorKey);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/console\/approvals$/);

    const card = page.getByRole('article', { name: /billing\.bank_account\.save/ });
    const ibanRow = card.getByRole('row', { name: /^iban/ });
    expect(await ibanRow.textContent()).toContain('DE89 •••• 3000');
    expect(await card.getByRole('row', { name: /account_holder/ }).textContent()).toContain(
      'Acme Prüftechnik GmbH',
    );
    const facts = await card.locator('dl').textContent();
    expect(facts).toContain('high');
    expect(facts).toMatch(/Estimated cost\s*0 credits/);
    expect(await page.content()).not.toMatch(/0532|DE89370400440532013000/);
    expect((await new AxeBuilder({ page }).analyze()).violations.filter(serious)).toEqual([]);
    if (process.env.CONSOLE_SCREENSHOT)
      await page.screenshot({ path: process.env.CONSOLE_SCREENSHOT, fullPage: true });

    // Readable at phone width: nothing wider than the screen.
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    // Approve by keyboard, with a note.
    await card.getByLabel(/Note/).focus();
    await page.keyboard.type('IBAN checked by phone');
    await card.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/done=approved/);
    expect(await page.getByRole('status').textContent()).toContain('Approved');
    expect(await page.getByRole('article', { name: /billing\.bank_account\.save/ }).count()).toBe(0);

    const run = await client.invoke('billing.bank_account.save', bankAccount, {
      approvalToken: approval.approval_token,
    });
    expect(run.status).toBe('succeeded');
    const audit = await gateway
      .knex('audit_events')
      .where({ action: 'approval.approve' })
      .whereRaw("details->>'approval_id' = ?", [approval.approval_id])
      .first();
    const prefix = gateway.operatorKey.slice('agw_ak_'.length, 'agw_ak_'.length + 12);
    expect(audit.actor).toBe(`operator:${prefix}`);
    expect(audit.details).toMatchObject({
      via: 'console',
      reason: 'IBAN checked by phone',
      status: 'approved',
    });
    await context.close();
  });

  it('speaks German when the browser asks for it', async () => {
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${gateway.url}/console`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Anmelden');
    expect(await page.getByLabel('Betreiberschlüssel').count()).toBe(1);
    expect((await new AxeBuilder({ page }).analyze()).violations.filter(serious)).toEqual([]);
    await context.close();
  });
});

const serious = (violation: { impact?: string | null }) =>
  violation.impact === 'serious' || violation.impact === 'critical';

describe('the console over HTTP', () => {
  let session: string;
  beforeAll(async () => {
    const { response, session: cookie } = await signIn(gateway.operatorKey);
    expect(response.status).toBe(303);
    session = cookie ?? '';
  });

  it('keeps only a hash of the session token, in an HttpOnly, SameSite=Strict cookie scoped to /console', async () => {
    const { response, session: token } = await signIn(gateway.operatorKey);
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
    const { approval } = await waitingBankAccountChange();
    const forged = await fetch(`${gateway.url}/console/approvals/${approval.approval_id}/decide`, {
      ...form({ decision: 'approve' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `agw_console=${session}` },
    });
    expect(forged.status).toBe(403);
    expect((await forged.json()).error.code).toBe('forbidden');
    const otherSession = (await signIn(gateway.operatorKey)).session ?? '';
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
    const { response, session: cookie } = await signIn(agent.key);
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
    expect((await signIn(revoked)).response.status).toBe(401);
    const own = (await signIn(gateway.operatorKey)).session ?? '';
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
  });

  it('limits sign-in attempts per address: past the limit even the right key waits', async () => {
    let answer: Response | undefined;
    for (let attempt = 0; attempt <= SIGN_IN_LIMIT.limit; attempt += 1) {
      answer = (await signIn('agw_ak_wrongwrongwr.nope')).response;
      if (answer.status === 429) break;
    }
    expect(answer?.status).toBe(429);
    const right = await signIn(gateway.operatorKey);
    expect(right.response.status).toBe(429);
    expect(Number(right.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.session).toBeUndefined();
  });
});
