// The operator console as a browser speaks to it over HTTP: sign-in, pages with their CSRF token, form
// posts, and the waiting approvals its tests look at (test/console*.test.ts).
import { createClient } from '@agw/client';
import { expect } from 'vitest';
import { billingClient, saveGermanIssuer } from './billing.js';
import { approvedInstallation, type GatewayFixture } from './gateway.js';

export const IBAN = 'DE89 3704 0044 0532 0130 00';
export const bankAccount = {
  display_name: 'Main account',
  account_holder: 'Acme Prüftechnik GmbH',
  iban: IBAN,
  bic: 'COBADEFFXXX',
};

/** An agent whose bank account change waits for the operator; its client and the approval. */
export async function waitingBankAccountChange(gateway: GatewayFixture) {
  const agent = await approvedInstallation(gateway);
  const client = createClient({ baseUrl: gateway.url, apiKey: agent.key, maxRetries: 0 });
  const answer = await client.invoke('billing.bank_account.save', bankAccount);
  expect(answer.status).toBe('pending_approval');
  const approval = answer.approval as { approval_id: string; approval_token: string };
  return { agent, client, approval };
}

/**
 * An agent with an open invoice of 58.31 EUR (issuer, bank account and finalize run to their end, the
 * bank account approved through the admin API) and a `payment(amount)` that asks to record a payment on it,
 * which waits for the operator (risk high).
 */
export async function openInvoice(gateway: GatewayFixture) {
  const agent = await approvedInstallation(gateway, '100');
  const billing = billingClient(gateway, agent.key);
  await saveGermanIssuer(billing);
  const customer = await billing.run('billing.account.save', { name: 'Müller Bau GmbH', country_code: 'DE' });
  const draft = await billing.run('billing.document.create_draft', {
    document_type: 'invoice',
    account_id: customer.account.id,
    document_date: new Date().toISOString().slice(0, 10),
    lines: [{ item_name: 'Hosting', quantity: 1, unit_price: 49, tax_percent: 19 }],
  });
  await billing.run('billing.document.finalize', { document_id: draft.document_id });
  const params = { document_id: draft.document_id };
  const payment = async (amount: number) => {
    const answer = await billing.client.invoke('billing.payment.record', { ...params, amount });
    expect(answer.status).toBe('pending_approval');
    return answer.approval as { approval_id: string; approval_token: string };
  };
  return { agent, client: billing.client, params, payment };
}

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);

/** The CSRF token of the first form of a page. */
export const csrfIn = (html: string) => html.match(/name="csrf" value="([^"]+)"/)?.[1] ?? '';

/** Signs in over HTTP as a browser would; the sign-in answer and the session cookie. */
export async function signIn(gateway: GatewayFixture, key: string) {
  const page = await fetch(`${gateway.url}/console`);
  const preCookie = cookieOf(page, 'agw_console_sign_in') ?? '';
  const response = await fetch(`${gateway.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `agw_console_sign_in=${preCookie}`,
    },
    body: new URLSearchParams({ csrf: csrfIn(await page.text()), operator_key: key }).toString(),
  });
  return { response, session: cookieOf(response, 'agw_console') };
}

/** A console page of a session: its answer, HTML and the CSRF token of its forms. */
export async function consolePage(gateway: GatewayFixture, session: string, path: string) {
  const response = await fetch(`${gateway.url}${path}`, {
    redirect: 'manual',
    headers: { cookie: `agw_console=${session}` },
  });
  const html = await response.text();
  return { response, html, csrf: csrfIn(html) };
}

/** Posts a console form with a session's cookie (no redirect followed). */
export function postForm(
  gateway: GatewayFixture,
  session: string,
  path: string,
  fields: Record<string, string>,
): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `agw_console=${session}` },
    body: new URLSearchParams(fields).toString(),
  });
}

export { cookieOf };
