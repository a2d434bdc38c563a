// The operator console in Debian's chromium (issue 29): an operator signs in with an operator key, sees
// a waiting bank account change with its IBAN masked and reveals it, approves it, and the agent's invoke
// runs; sees a waiting payment with its amount and preflight verdict, approves it, and the payment is
// recorded; blocks an installation and its agent's next invoke is refused; credits a wallet and the
// balance shows it. Every page passes axe-core (no serious or critical violation) and fits 360 px.
// Its HTTP-level side (forgeries, installation keys, paging and filters at 10 000 rows, policy, audit,
// mail) is test/console-http.test.ts, which runs on both engines.
import { createClient } from '@agw/client';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailable, launchBrowser } from './helpers/browser.js';
import { bankAccount, IBAN, openInvoice, waitingBankAccountChange } from './helpers/console.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
const serious = (violation: { impact?: string | null }) =>
  violation.impact === 'serious' || violation.impact === 'critical';

/** No serious or critical axe-core violation, and nothing wider than a 360 px phone. */
async function checkPage(page: Page) {
  expect((await new AxeBuilder({ page }).analyze()).violations.filter(serious)).toEqual([]);
  await fitsPhone(page);
}

/** Nothing wider than a 360 px phone. */
async function fitsPhone(page: Page) {
  const width = page.viewportSize()?.width ?? 0;
  await page.setViewportSize({ width: 360, height: 800 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width, height: 900 });
}

// The browser runs in the PGlite pass only (CI's time budget): the pages' SQL is the same on both
// engines and test/console-http.test.ts exercises all of it on PostgreSQL too.
const skip =
  browserUnavailable ?? (process.env.DATABASE_URL ? 'DATABASE_URL is set: PGlite pass only' : undefined);

describe.skipIf(skip)(`the console in chromium ${skip ?? ''}`, () => {
  let browser: Browser;
  let page: Page | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh page signed in by keyboard: the key field, Enter. */
  async function signedInPage(locale = 'en-US'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, locale });
    const opened = await context.newPage();
    // What the page lacks fails in seconds, not at the test's timeout.
    opened.setDefaultTimeout(10_000);
    await opened.goto(`${gateway.url}/console`);
    // The sign-in page is checked once, in German (axe-core takes seconds a page here).
    if (locale === 'de-DE') await checkPage(opened);
    await opened.locator('#operator_key').focus();
    await opened.keyboard.type(gateway.operatorKey);
    await opened.keyboard.press('Enter');
    await opened.waitForURL(/\/console\/approvals$/);
    return opened;
  }

  it('signs in with the operator key, shows the waiting change with its IBAN masked, reveals it once, approves it, and the agent’s invoke runs', async () => {
    const { agent, client, approval } = await waitingBankAccountChange(gateway);
    page = await signedInPage();
    await page.goto(`${gateway.url}/console/approvals?organization=${agent.organizationId}`);
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
    await checkPage(page);
    if (process.env.CONSOLE_SCREENSHOT)
      await page.screenshot({ path: process.env.CONSOLE_SCREENSHOT, fullPage: true });

    // The full IBAN, once, by keyboard.
    await ibanRow.getByRole('button', { name: /Reveal/ }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/reveal$/);
    expect(await page.getByRole('row', { name: /^iban/ }).textContent()).toContain(IBAN);
    await checkPage(page);
    await page.goBack();
    await page.reload();
    expect(await page.content()).not.toContain('0532');

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
      .whereIn('action', ['approval.approve', 'approval.reveal'])
      .whereRaw("details->>'approval_id' = ?", [approval.approval_id])
      .orderBy('occurred_at');
    const prefix = gateway.operatorKey.slice('agw_ak_'.length, 'agw_ak_'.length + 12);
    expect(audit.map((row) => [row.action, row.actor])).toEqual([
      ['approval.reveal', `operator:${prefix}`],
      ['approval.approve', `operator:${prefix}`],
    ]);
    expect(audit[1].details).toMatchObject({
      via: 'console',
      reason: 'IBAN checked by phone',
      status: 'approved',
    });
  });

  it('shows a waiting payment with its amount and preflight verdict, approves it, and the payment is recorded', async () => {
    page ??= await signedInPage();
    const invoice = await openInvoice(gateway);
    const approval = await invoice.payment(58.31);
    await page.goto(
      `${gateway.url}/console/approvals?organization=${invoice.agent.organizationId}&capability=billing.payment.record`,
    );
    const card = page.getByRole('article', { name: /billing\.payment\.record/ });
    expect(await card.getByRole('row', { name: /^amount/ }).textContent()).toContain('58.31');
    expect(await card.locator('dl').textContent()).toMatch(/Preflight \(checked now\)\s*Would succeed/);
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(/done=approved/);
    const run = await invoice.client.invoke(
      'billing.payment.record',
      { ...invoice.params, amount: 58.31 },
      { approvalToken: approval.approval_token },
    );
    expect(run.status).toBe('succeeded');
    expect((run as { result: { document: { status: string } } }).result.document.status).toBe('paid');
  });

  it('blocks an installation by keyboard, and its agent’s next invoke is refused', async () => {
    page ??= await signedInPage();
    const agent = await approvedInstallation(gateway);
    const client = createClient({ baseUrl: gateway.url, apiKey: agent.key, maxRetries: 0 });
    expect((await client.invoke('billing.account.search', {})).status).toBe('succeeded');
    await page.goto(`${gateway.url}/console/installations`);
    await checkPage(page);
    await page.getByLabel('Status').selectOption('approved');
    await page.getByLabel('Organization id').fill(agent.organizationId);
    await page.getByRole('button', { name: 'Filter' }).click();
    const card = page.getByRole('article').filter({ hasText: agent.installationId });
    expect(await card.locator('dl').textContent()).toMatch(/Owner\s*\S+ · verified/);
    await card.getByRole('button', { name: 'Block' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/done=blocked/);
    expect(await page.getByRole('status').textContent()).toContain('Installation blocked');
    expect(await card.locator('dl').textContent()).toMatch(/Status\s*blocked/);
    await expect(client.invoke('billing.account.search', {})).rejects.toMatchObject({
      code: 'installation_blocked',
    });
  });

  it('credits a wallet from the organizations page, and the balance shows it', async () => {
    page ??= await signedInPage();
    const agent = await approvedInstallation(gateway, '3');
    await page.goto(`${gateway.url}/console/organizations`);
    await checkPage(page);
    await page.goto(`${gateway.url}/console/organizations/${agent.organizationId}`);
    await checkPage(page);
    expect(await page.locator('#balance').textContent()).toBe('3 credits');
    await page.getByLabel(/Amount to credit/).fill('40.25');
    await page.getByLabel(/Memo/).fill('Invoice 2026-118 paid');
    await page.getByRole('button', { name: 'Credit the wallet' }).click();
    await page.waitForURL(/done=credited/);
    expect(await page.locator('#balance').textContent()).toBe('43.25 credits');
    expect(await page.getByRole('row').filter({ hasText: '40.25' }).count()).toBe(1);
  });

  it('has no serious accessibility violation and fits 360 px on the audit page and a record with its guard trace', async () => {
    page ??= await signedInPage();
    await waitingBankAccountChange(gateway);
    await page.goto(`${gateway.url}/console/audit`);
    await checkPage(page);
    await page.getByLabel('Capability').selectOption('billing.bank_account.save');
    await page.getByLabel('Outcome').selectOption('pending_approval');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: /UTC/ }).first().click();
    await page.waitForURL(/\/console\/audit\/[^/]+$/);
    expect(await page.getByRole('table', { name: 'Guard trace' }).count()).toBe(1);
    await checkPage(page);
  });

  it('verifies the audit chain on a button; the mail page passes axe-core and fits 360 px', async () => {
    page ??= await signedInPage();
    await page.goto(`${gateway.url}/console/audit`);
    await page.getByRole('button', { name: 'Verify the audit chain' }).click();
    expect(await page.getByRole('status').textContent()).toContain('The chain verifies');
    await checkPage(page);
    await page.goto(`${gateway.url}/console/mail`);
    await checkPage(page);
  });

  it('speaks German on every page when the browser asks for it', async () => {
    const german = await signedInPage('de-DE');
    const headings: Record<string, string> = {
      approvals: 'Freigaben',
      installations: 'Installationen',
      organizations: 'Organisationen',
      audit: 'Audit',
      mail: 'Mail',
    };
    // "Audit" and "Mail" read the same in English: words only the German pages have.
    const germanOnly: Record<string, string> = { audit: 'Audit-Kette prüfen', mail: 'Postausgang' };
    for (const [path, heading] of Object.entries(headings)) {
      await german.goto(`${gateway.url}/console/${path}`);
      expect(await german.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
      expect(await german.locator('body').textContent(), path).toContain(germanOnly[path] ?? heading);
      await fitsPhone(german);
    }
    expect(await german.getByRole('link', { name: 'Organisationen' }).count()).toBe(1);
  });
});
