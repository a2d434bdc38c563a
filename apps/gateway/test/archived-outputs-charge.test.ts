// Issue 28, finding 6: re-reading an archived PDF, Factur-X or XRechnung answers the same bytes from the
// archive, so it is charged once per document and format; a draft's PDF is rendered, and charged, each
// time. What a user notices: the answer's `cost` and the wallet balance.
import { readWalletSnapshot } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient, saveGermanIssuer } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
let billing: ReturnType<typeof billingClient>;
let organizationId: string;
let accountId: string;
/** A public buyer: its Leitweg-ID (buyer_reference) makes its invoices XRechnung-ready. */
let publicAccountId: string;
const today = new Date().toISOString().slice(0, 10);

const balance = async () =>
  (await readWalletSnapshot(gateway.knex, organizationId, new Date())).balance_credits;

async function draftInvoice(account = accountId): Promise<string> {
  const draft = await billing.run('billing.document.create_draft', {
    document_type: 'invoice',
    document_date: today,
    service_date: today,
    account_id: account,
    lines: [{ item_name: 'Beratung', quantity: 2, unit: 'HUR', unit_price: 100, tax_percent: 19 }],
  });
  return draft.document_id;
}

beforeAll(async () => {
  const installation = await approvedInstallation(gateway, '100');
  organizationId = installation.organizationId;
  billing = billingClient(gateway, installation.key);
  await saveGermanIssuer(billing, { issuer_phone: '+49 30 123456' });
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
  accountId = account.account.id;
  const publicBuyer = await billing.run('billing.account.save', {
    name: 'Bezirksamt Nord',
    address_line1: 'Amtsweg 5',
    postal_code: '20095',
    city: 'Hamburg',
    country_code: 'DE',
    email: 'rechnung@bezirksamt-nord.example',
    payment_terms_days: 14,
    buyer_reference: '04011000-12345-67',
    e_invoice_endpoint_id: 'rechnung@bezirksamt-nord.example',
    e_invoice_endpoint_scheme_id: 'EM',
    e_invoice_format: 'xrechnung',
  });
  publicAccountId = publicBuyer.account.id;
});

describe('archived outputs are charged once per document and format', () => {
  it('the second read of an issued invoice’s PDF is not charged: no cost, the balance unchanged', async () => {
    const id = await draftInvoice();
    await billing.run('billing.document.finalize', { document_id: id });
    const first = await billing.client.invoke('billing.document.pdf', { document_id: id });
    expect(first).toMatchObject({ status: 'succeeded', cost: { credits: '0.05', currency: 'credits' } });
    const before = await balance();
    const second = await billing.client.invoke('billing.document.pdf', { document_id: id });
    expect(second.status).toBe('succeeded');
    expect(second).not.toHaveProperty('cost');
    expect((second as { result: { pdf_base64: string } }).result.pdf_base64).toBe(
      (first as { result: { pdf_base64: string } }).result.pdf_base64,
    );
    expect(await balance()).toBe(before);
  });

  it('each format is charged once: the Factur-X of a document whose PDF was read is charged the first time', async () => {
    const id = await draftInvoice();
    await billing.run('billing.document.finalize', { document_id: id });
    await billing.client.invoke('billing.document.pdf', { document_id: id });
    const first = await billing.client.invoke('billing.document.facturx', { document_id: id });
    expect(first).toMatchObject({ status: 'succeeded', cost: { credits: '0.1' } });
    const before = await balance();
    const again = await billing.client.invoke('billing.document.facturx', { document_id: id });
    expect(again).not.toHaveProperty('cost');
    expect(await balance()).toBe(before);
  });

  it('the second read of an XRechnung is not charged: the same XML, no cost, the balance unchanged', async () => {
    const id = await draftInvoice(publicAccountId);
    await billing.run('billing.document.finalize', { document_id: id });
    const first = await billing.client.invoke('billing.document.xrechnung', { document_id: id });
    expect(first).toMatchObject({ status: 'succeeded', cost: { credits: expect.any(String) } });
    expect(Number((first as { cost: { credits: string } }).cost.credits)).toBeGreaterThan(0);
    const before = await balance();
    const again = await billing.client.invoke('billing.document.xrechnung', { document_id: id });
    expect(again.status).toBe('succeeded');
    expect(again).not.toHaveProperty('cost');
    expect((again as { result: { xml_base64: string } }).result.xml_base64).toBe(
      (first as { result: { xml_base64: string } }).result.xml_base64,
    );
    expect(await balance()).toBe(before);
  });

  it('a draft’s PDF is not archived: it is rendered and charged each time', async () => {
    const id = await draftInvoice();
    const before = await balance();
    const first = await billing.client.invoke('billing.document.pdf', { document_id: id });
    const second = await billing.client.invoke('billing.document.pdf', { document_id: id });
    expect(first).toMatchObject({ cost: { credits: '0.05' } });
    expect(second).toMatchObject({ cost: { credits: '0.05' } });
    expect(Number(before) - Number(await balance())).toBeCloseTo(0.1, 6);
  });

  it('describe says so', async () => {
    const described = await billing.client.describe('billing.document.pdf');
    expect(described.summary).toMatch(/charged once per document and format/i);
  });
});
