// Issue 26, finding 1: one approved agent with a big invoice froze the whole gateway, because the PDF,
// the XML and its Schematron/XSD checks ran on the event loop. They run in a worker pool now: while the
// largest allowed document of one organization renders, /health and another organization's read answer;
// a rendering past its time budget ends in a retryable 503 envelope and the gateway keeps serving; a
// line amount the database cannot hold is a 400 at the line, not a 500.

import { capabilityDomains, createBillingDomain } from '@agw/capabilities';
import { findCapabilityContract } from '@agw/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient, refusal, saveGermanIssuer } from './helpers/billing.js';
import { approvedInstallation, type GatewayFixture, useGateway } from './helpers/gateway.js';

const today = new Date().toISOString().slice(0, 10);
// The bound as the contract states it (describe shows it to agents).
const createDraft = findCapabilityContract('billing.document.create_draft');
const MAX_LINES = (createDraft?.input_schema as { properties: { lines: { maxItems: number } } } | undefined)
  ?.properties.lines.maxItems as number;

type Billing = ReturnType<typeof billingClient>;

/** An organization with an issuer profile, a bank account and one German business customer. */
async function organization(gateway: GatewayFixture): Promise<{ billing: Billing; accountId: string }> {
  const billing = billingClient(gateway, (await approvedInstallation(gateway, '100')).key);
  await saveGermanIssuer(billing);
  const account = await billing.run('billing.account.save', {
    name: 'Müller Bau GmbH',
    address_line1: 'Amtsweg 5',
    postal_code: '20095',
    city: 'Hamburg',
    country_code: 'DE',
    vat_id: 'DE987654321',
    email: 'rechnung@mueller-bau.example',
    payment_terms_days: 14,
  });
  return { billing, accountId: account.account.id };
}

/** A draft invoice of `lines` lines. */
async function draft(billing: Billing, accountId: string, lines: number): Promise<string> {
  const created = await billing.run('billing.document.create_draft', {
    document_type: 'invoice',
    document_date: today,
    account_id: accountId,
    lines: Array.from({ length: lines }, (_, index) => ({
      item_name: `Prüfung Abschnitt ${index + 1}`,
      description: 'Sichtprüfung und Protokoll\nmit Fotos',
      quantity: 1 + (index % 5),
      unit: 'HUR',
      unit_price: 95.5 + index,
      tax_percent: index % 3 === 0 ? 7 : 19,
    })),
  });
  return created.document_id;
}

/**
 * Runs `slow`, and meanwhile `rounds` rounds of /health and `read`, one after the other: answers the
 * order in which they finished. On the event loop the rendering stopped everything until it was done.
 */
async function whileRendering(
  gateway: GatewayFixture,
  slow: () => Promise<unknown>,
  read: () => Promise<unknown>,
  rounds: number,
): Promise<string[]> {
  const finished: string[] = [];
  const rendering = slow().then(() => finished.push('rendering'));
  for (let round = 0; round < rounds; round += 1) {
    const health = await fetch(`${gateway.url}/health`);
    expect(health.status).toBe(200);
    await read();
    finished.push(`round ${round}`);
  }
  await rendering;
  return finished;
}

const ROUNDS = 10;
/**
 * Rounds that must finish before the rendering does: a round takes milliseconds, the largest rendering
 * seconds; on a loaded machine the last rounds may meet a rendering that ends early, the first never.
 * Held on the session or the event loop, the rendering finished first (or /health answered 503).
 */
const ROUNDS_BEFORE = 3;

describe('the largest allowed document renders off the event loop', () => {
  const gateway = useGateway();
  let renderer: { billing: Billing; accountId: string };
  let reader: Billing;
  let readable: string;

  beforeAll(async () => {
    renderer = await organization(gateway);
    const other = await organization(gateway);
    reader = other.billing;
    readable = await draft(reader, other.accountId, 1);
  }, 120_000);

  // Embedded PGlite is one database session: a render's request held it (a paid read's transaction
  // around the handler, a free read's too) while the handler waited for the worker pool, and every other
  // request waited for the render to end. A read's handler borrows a connection per statement now.
  it(`Factur-X of a ${MAX_LINES}-line invoice: /health and another organization's read answer meanwhile`, async () => {
    const id = await draft(renderer.billing, renderer.accountId, MAX_LINES);
    await renderer.billing.run('billing.document.finalize', { document_id: id });
    const order = await whileRendering(
      gateway,
      () => renderer.billing.run('billing.document.facturx', { document_id: id }),
      () => reader.run('billing.document.read', { document_id: readable }),
      ROUNDS,
    );
    expect(order.indexOf('rendering')).toBeGreaterThanOrEqual(ROUNDS_BEFORE);
  }, 180_000);

  it(`the PDF of a ${MAX_LINES}-line draft, rendered on every call: the same`, async () => {
    const id = await draft(renderer.billing, renderer.accountId, MAX_LINES);
    const order = await whileRendering(
      gateway,
      () => renderer.billing.run('billing.document.pdf', { document_id: id }),
      () => reader.run('billing.document.read', { document_id: readable }),
      ROUNDS,
    );
    expect(order.indexOf('rendering')).toBeGreaterThanOrEqual(ROUNDS_BEFORE);
  }, 180_000);

  it(`${MAX_LINES + 1} lines are refused before anything is stored`, async () => {
    const error = await refusal(draft(renderer.billing, renderer.accountId, MAX_LINES + 1));
    expect(error.status).toBe(400);
    expect(error.code).toBe('validation_failed');
    expect(error.schemaPointer).toBe('/params/lines');
  });

  it('a line amount past 10^12 (quantity × unit price within their own bounds) is a 400 at the line', async () => {
    const error = await refusal(
      renderer.billing.run('billing.document.create_draft', {
        document_type: 'invoice',
        document_date: today,
        account_id: renderer.accountId,
        lines: [
          { item_name: 'Beratung', quantity: 1, unit_price: 10 },
          { item_name: 'Großauftrag', quantity: 1_000_000, unit_price: 100_000_000 },
        ],
      }),
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe('validation_failed');
    expect(error.schemaPointer).toBe('/params/lines/1');
  });
});

describe('a rendering past its time budget', () => {
  // The budget as an operator sets it (createBillingDomain's option; BILLING_RENDER_TIMEOUT_MS).
  const gateway = useGateway({
    domains: capabilityDomains.map((domain) =>
      domain.name === 'billing' ? createBillingDomain({ rendering: { timeoutMs: 50 } }) : domain,
    ),
  });

  it('answers a retryable 503 envelope naming the budget, and the gateway keeps serving', async () => {
    const { billing, accountId } = await organization(gateway);
    const id = await draft(billing, accountId, MAX_LINES);
    const error = await refusal(billing.run('billing.document.pdf', { document_id: id }));
    expect(error.status).toBe(503);
    expect(error).toMatchObject({ code: 'dependency_unavailable', retryable: true, retryAfterSeconds: 1 });
    expect(error.message).toMatch(/budget of 50 ms.*BILLING_RENDER_TIMEOUT_MS/);
    expect(error.auditId).toEqual(expect.any(String));
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    const read = await billing.run('billing.document.read', { document_id: id });
    expect(read.lines).toHaveLength(MAX_LINES);
  }, 120_000);
});
