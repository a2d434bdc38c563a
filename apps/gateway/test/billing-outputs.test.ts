// The outputs of a finalized invoice over HTTP with the typed SDK, as an agent uses them: PDF,
// XRechnung and Factur-X that pass the official rules, answered from the archive on later calls;
// a draft's PDF with its DRAFT mark; what cannot make an XRechnung is refused naming the business
// term; billing.document.send mails the PDF and the XRechnung to the customer once per key.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient, refusal, saveGermanIssuer } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { attachmentsOf, readDevMailbox, waitUntil } from './helpers/mail-sink.js';

const run = promisify(execFile);
const gateway = useGateway();
let billing: ReturnType<typeof billingClient>;
let other: ReturnType<typeof billingClient>;
let publicBuyerId: string;
let businessBuyerId: string;
let facturxBuyerId: string;
const today = new Date().toISOString().slice(0, 10);

/** Runs `tool` on `bytes` written to a temporary file; answers its stdout. */
async function onFile(bytes: Buffer, tool: string, args: (file: string) => string[]): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'agw-outputs-'));
  try {
    const file = join(directory, 'document.pdf');
    await writeFile(file, bytes);
    return (await run(tool, args(file), { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

async function issuedInvoice(accountId: string, lines = 2): Promise<string> {
  const draft = await billing.run('billing.document.create_draft', {
    document_type: 'invoice',
    document_date: today,
    account_id: accountId,
    title: 'Straßenbau Prüfung',
    lines: Array.from({ length: lines }, (_, index) => ({
      item_name: index % 2 === 0 ? 'Beratung (Stunde)' : 'Handbuch für Prüfer',
      quantity: index % 2 === 0 ? 7.5 : 3,
      unit: index % 2 === 0 ? 'HUR' : 'C62',
      unit_price: index % 2 === 0 ? 120 : 19.99,
      tax_percent: index % 2 === 0 ? 19 : 7,
    })),
  });
  await billing.run('billing.document.finalize', { document_id: draft.document_id });
  return draft.document_id;
}

beforeAll(async () => {
  billing = billingClient(gateway, (await approvedInstallation(gateway, '100')).key);
  other = billingClient(gateway, (await approvedInstallation(gateway, '10')).key);
  await saveGermanIssuer(billing, {
    issuer_phone: '+49 30 123456',
    number_patterns: { invoice: 'RE-{YYYY}-{SEQ:5}' },
  });
  const account = (name: string, extra: Record<string, unknown>) =>
    billing.run('billing.account.save', {
      name,
      address_line1: 'Amtsweg 5',
      postal_code: '20095',
      city: 'Hamburg',
      country_code: 'DE',
      email: `rechnung@${name.toLowerCase().replace(/[^a-z]+/g, '-')}.example`,
      payment_terms_days: 14,
      ...extra,
    });
  publicBuyerId = (
    await account('Bezirksamt Nord', {
      buyer_reference: '04011000-12345-67',
      e_invoice_endpoint_id: 'rechnung@bezirksamt-nord.example',
      e_invoice_endpoint_scheme_id: 'EM',
      e_invoice_format: 'xrechnung',
    })
  ).account.id;
  businessBuyerId = (await account('Müller Bau GmbH', { vat_id: 'DE987654321' })).account.id;
  facturxBuyerId = (
    await account('Schmidt Handel KG', { vat_id: 'DE111222333', e_invoice_format: 'facturx' })
  ).account.id;
});

describe('outputs of a finalized invoice', () => {
  it('PDF: PDF/A with every font embedded, the number, totals and IBAN on it, the same archived bytes twice', async () => {
    const id = await issuedInvoice(publicBuyerId);
    const first = await billing.run('billing.document.pdf', { document_id: id });
    const second = await billing.run('billing.document.pdf', { document_id: id });
    const bytes = Buffer.from(first.pdf_base64, 'base64');
    expect(second.pdf_base64).toBe(first.pdf_base64);
    expect(first.archive).toMatchObject({
      format: 'pdf',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size_bytes: bytes.length,
    });
    expect(second.archive).toEqual(first.archive);
    expect(first.filename).toMatch(/^RE-\d{4}-\d{5}\.pdf$/);
    await onFile(bytes, 'qpdf', (file) => ['--check', file]);
    const fonts = (await onFile(bytes, 'pdffonts', (file) => [file])).split('\n').slice(2).filter(Boolean);
    expect(fonts.length).toBeGreaterThan(0);
    for (const font of fonts) expect(font).toMatch(/\byes\s+yes\s+(yes|no)\s+\d+\s+\d+\s*$/);
    const text = await onFile(bytes, 'pdftotext', (file) => ['-layout', file, '-']);
    expect(text).toContain(first.filename.replace('.pdf', ''));
    expect(text).toContain('DE89 3704 0044 0532 0130 00');
    expect(text).toContain('1.135,17');
  });

  it("a German issuer's invoice without a service date: finalize takes its date as the Leistungsdatum, printed and in the XRechnung and Factur-X", async () => {
    const id = await issuedInvoice(publicBuyerId);
    const pdf = await billing.run('billing.document.pdf', { document_id: id });
    const text = await onFile(Buffer.from(pdf.pdf_base64, 'base64'), 'pdftotext', (file) => [
      '-layout',
      file,
      '-',
    ]);
    const [year, month, day] = today.split('-');
    expect(text).toMatch(new RegExp(`Leistungsdatum\\s+${day}\\.${month}\\.${year}`));
    expect(text).toMatch(/\b7,5 ?Std\./);
    const xrechnung = await billing.run('billing.document.xrechnung', { document_id: id });
    const xml = Buffer.from(xrechnung.xml_base64, 'base64').toString('utf8');
    expect(xml).toContain(`<cbc:ActualDeliveryDate>${today}</cbc:ActualDeliveryDate>`);
    expect(xml).toContain('unitCode="HUR"');
    expect(xrechnung.validation).toMatchObject({ valid: true });
    // The Factur-X's XML carries it too (BT-72).
    const facturx = await billing.run('billing.document.facturx', { document_id: id });
    const cii = Buffer.from(facturx.embedded_xml_base64 ?? '', 'base64').toString('utf8');
    expect(cii).toMatch(
      new RegExp(
        `<ram:ActualDeliverySupplyChainEvent>\\s*<ram:OccurrenceDateTime>\\s*<udt:DateTimeString format="102">${year}${month}${day}</udt:DateTimeString>`,
      ),
    );
  });

  it('XRechnung: UBL with the buyer reference, valid under XSD, EN 16931 and XRechnung rules, archived', async () => {
    const id = await issuedInvoice(publicBuyerId);
    const first = await billing.run('billing.document.xrechnung', { document_id: id });
    const xml = Buffer.from(first.xml_base64, 'base64').toString('utf8');
    expect(xml).toContain('urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0');
    expect(xml).toContain('<cbc:BuyerReference>04011000-12345-67</cbc:BuyerReference>');
    expect(first.validation).toMatchObject({ valid: true });
    const ruleSets = (first.validation as { rule_sets: { name: string; fatal: number }[] }).rule_sets;
    expect(ruleSets.map((set) => set.name).join(' ')).toMatch(/EN ?16931.*XRechnung/i);
    expect(ruleSets.every((set) => set.fatal === 0)).toBe(true);
    // Findings below error level reach the answer's warnings[]. A German issuer's invoice states a
    // delivery date (finalize takes the document date): no BR-DE-TMP-32 any more.
    const validation = first.validation as { warnings: string[] };
    expect(first.warnings).toEqual(validation.warnings);
    expect(first.warnings).not.toContainEqual(expect.stringMatching(/^BR-DE-TMP-32/));
    const second = await billing.run('billing.document.xrechnung', { document_id: id });
    expect(second.xml_base64).toBe(first.xml_base64);
    expect(second.archive).toEqual(first.archive);
  });

  it('Factur-X: the embedded factur-x.xml is the answered XML, valid under the Factur-X and EN 16931 rules', async () => {
    const id = await issuedInvoice(businessBuyerId);
    const answer = await billing.run('billing.document.facturx', { document_id: id });
    expect(answer).toMatchObject({ attachment_filename: 'factur-x.xml', validation: { valid: true } });
    const pdf = Buffer.from(answer.pdf_base64, 'base64');
    await onFile(pdf, 'qpdf', (file) => ['--check', file]);
    const embedded = await onFile(pdf, 'qpdf', (file) => [`--show-attachment=factur-x.xml`, file]);
    expect(Buffer.from(embedded, 'utf8').toString('base64')).toBe(answer.embedded_xml_base64);
  });
});

describe('PDFs of the other issued documents', () => {
  it('a finalized quote and the sales order made from it render with their own title and number', async () => {
    const quote = await billing.run('billing.document.create_draft', {
      document_type: 'quote',
      document_date: today,
      account_id: businessBuyerId,
      title: 'Angebot Prüfstand',
      lines: [{ item_name: 'Prüfstand PX-9', quantity: 1, unit_price: 4200, tax_percent: 19 }],
    });
    const issuedQuote = await billing.run('billing.document.finalize', { document_id: quote.document_id });
    const order = await billing.run('billing.document.convert_quote_to_order', {
      source_document_id: quote.document_id,
    });
    const issuedOrder = await billing.run('billing.document.finalize', { document_id: order.document_id });
    for (const [issued, title] of [
      [issuedQuote, 'Angebot'],
      [issuedOrder, 'Auftragsbestätigung'],
    ] as const) {
      const number = issued.document.number as string;
      expect(number).toMatch(title === 'Angebot' ? /^QT-\d{4}-\d{5}$/ : /^SO-\d{4}-\d{5}$/);
      const pdf = await billing.run('billing.document.pdf', { document_id: issued.document.id });
      expect(pdf.filename).toBe(`${number}.pdf`);
      const bytes = Buffer.from(pdf.pdf_base64, 'base64');
      await onFile(bytes, 'qpdf', (file) => ['--check', file]);
      const text = await onFile(bytes, 'pdftotext', (file) => ['-layout', file, '-']);
      expect(text).toContain(`${title} ${number}`);
      expect(text).toContain('Prüfstand PX-9');
      expect(text).toMatch(/Gesamtbetrag\s+4\.998,00 €/);
      // Neither is an invoice: no payment request and no invoice title.
      expect(text).not.toContain('Bitte überweisen');
      expect(text).not.toContain('Rechnung ');
    }
  });
});

describe('what an output refuses', () => {
  it("a draft's PDF carries DRAFT and no number and is not archived; its e-invoice waits for finalize", async () => {
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      account_id: businessBuyerId,
      lines: [{ item_name: 'Beratung', quantity: 1, unit_price: 100, tax_percent: 19 }],
    });
    const pdf = await billing.run('billing.document.pdf', { document_id: draft.document_id });
    expect(pdf.archive).toBeNull();
    const text = await onFile(Buffer.from(pdf.pdf_base64, 'base64'), 'pdftotext', (file) => [file, '-']);
    expect(text).toMatch(/DRAFT|ENTWURF/);
    const refused = await refusal(
      billing.run('billing.document.xrechnung', { document_id: draft.document_id }),
    );
    expect(refused.code).toBe('conflict');
    expect(refused.message).toContain('finalize');
  });

  it('an XRechnung without a buyer reference is refused naming BT-10 and where to set it', async () => {
    const id = await issuedInvoice(businessBuyerId);
    const refused = await refusal(billing.run('billing.document.xrechnung', { document_id: id }));
    expect(refused.status).toBe(400);
    expect(refused.code).toBe('validation_failed');
    expect(refused.message).toContain('BT-10');
    expect(refused.message).toContain('buyer_reference');
  });

  it('a USD invoice with VAT is not finalized without an exchange rate; with one, its XRechnung states the VAT in EUR', async () => {
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      account_id: publicBuyerId,
      currency: 'USD',
      lines: [{ item_name: 'Workshop', quantity: 2, unit_price: 1000, tax_percent: 19 }],
    });
    const refused = await refusal(
      billing.run('billing.document.finalize', { document_id: draft.document_id }),
    );
    expect(refused.status).toBe(400);
    expect(refused.code).toBe('validation_failed');
    expect(refused.message).toContain('/params/exchange_rate');
    expect(refused.message).toContain('BT-111');
    // The refusal used no number: the draft is still a draft.
    expect(
      (await billing.run('billing.document.read', { document_id: draft.document_id })).document.status,
    ).toBe('draft');
    await billing.run('billing.document.finalize', { document_id: draft.document_id, exchange_rate: 0.92 });
    const answer = await billing.run('billing.document.xrechnung', { document_id: draft.document_id });
    expect(answer.validation).toMatchObject({ valid: true });
    const xml = Buffer.from(answer.xml_base64, 'base64').toString('utf8');
    // 2000.00 USD × 19 % = 380.00 USD VAT; × 0.92 = 349.60 EUR.
    expect(xml).toContain('<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>');
    expect(xml).toContain('<cbc:TaxAmount currencyID="EUR">349.6</cbc:TaxAmount>');
    const pdf = await billing.run('billing.document.pdf', { document_id: draft.document_id });
    const text = await onFile(Buffer.from(pdf.pdf_base64, 'base64'), 'pdftotext', (file) => [
      '-layout',
      file,
      '-',
    ]);
    expect(text).toMatch(/USt\. gesamt in EUR \(Kurs 1 USD = 0,92 EUR\)\s+349,60 €/);
  });

  it("another organization's document is not found", async () => {
    const id = await issuedInvoice(businessBuyerId);
    const refused = await refusal(other.run('billing.document.pdf', { document_id: id }));
    expect(refused.code).toBe('not_found');
  });
});

describe('billing.document.send', () => {
  it('mails the PDF and the XRechnung the account prefers, marks the invoice sent, once per key', async () => {
    const id = await issuedInvoice(publicBuyerId);
    const key = `send-${id}`;
    const first = await billing.client.invoke(
      'billing.document.send',
      { document_id: id },
      { idempotencyKey: key },
    );
    const replay = await billing.client.invoke(
      'billing.document.send',
      { document_id: id },
      { idempotencyKey: key },
    );
    expect(first.status).toBe('succeeded');
    expect(replay).toMatchObject({ status: 'succeeded' });
    const sent = (first as { result: { document: { status: string; number: string }; delivery: unknown } })
      .result;
    expect(sent.document.status).toBe('sent');
    expect(sent.delivery).toMatchObject({
      to: 'rechnung@bezirksamt-nord.example',
      e_invoice_format: 'xrechnung',
      attachments: [
        { filename: `${sent.document.number}.pdf`, mime_type: 'application/pdf' },
        { filename: `${sent.document.number}-xrechnung.xml`, mime_type: 'application/xml' },
      ],
    });

    const mails = await waitUntil(async () => {
      const found = (await readDevMailbox(gateway.dataDir)).filter((mail) =>
        mail.subject.includes(sent.document.number),
      );
      return found.length > 0 ? found : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [mail] = mails;
    expect(
      (await readDevMailbox(gateway.dataDir)).filter((m) => m.subject.includes(sent.document.number)),
    ).toHaveLength(1);
    expect(mail?.to).toContain('rechnung@bezirksamt-nord.example');
    const files = attachmentsOf(mail as NonNullable<typeof mail>);
    expect(files.map((file) => file.filename)).toEqual([
      `${sent.document.number}.pdf`,
      `${sent.document.number}-xrechnung.xml`,
    ]);
    const archivedPdf = await billing.run('billing.document.pdf', { document_id: id });
    expect(files[0]?.content.toString('base64')).toBe(archivedPdf.pdf_base64);

    const read = await billing.run('billing.document.read', { document_id: id });
    expect(read.document).toMatchObject({ status: 'sent' });
    expect(read.document.sent_at).toEqual(expect.any(String));
    expect(read.deliveries).toHaveLength(1);
    // Sent is still open money: a payment settles it.
    const balance = read.document.balance;
    const paid = await billing.run('billing.payment.record', {
      document_id: id,
      amount: balance,
      payment_date: today,
    });
    expect(paid).toMatchObject({ document: { status: 'paid' } });
  });

  it('with an account preferring Factur-X, mails one attachment: the Factur-X PDF carrying factur-x.xml', async () => {
    const id = await issuedInvoice(facturxBuyerId);
    const sent = await billing.run('billing.document.send', { document_id: id });
    const number = sent.document.number as string;
    expect(sent.delivery).toMatchObject({
      to: 'rechnung@schmidt-handel-kg.example',
      e_invoice_format: 'facturx',
      attachments: [{ filename: `${number}-facturx.pdf`, mime_type: 'application/pdf' }],
    });
    expect(sent.delivery.attachments).toHaveLength(1);
    const [mail] = await waitUntil(async () => {
      const found = (await readDevMailbox(gateway.dataDir)).filter((m) => m.subject.includes(number));
      return found.length > 0 ? found : undefined;
    });
    const files = attachmentsOf(mail as NonNullable<typeof mail>);
    expect(files.map((file) => [file.filename, file.contentType])).toEqual([
      [`${number}-facturx.pdf`, 'application/pdf'],
    ]);
    const pdf = files[0]?.content as Buffer;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await onFile(pdf, 'qpdf', (file) => ['--check', file]);
    expect(await onFile(pdf, 'pdfdetach', (file) => ['-list', file])).toContain('factur-x.xml');
    // It is the archived Factur-X: the same bytes, the same embedded XML the capability answers.
    const facturx = await billing.run('billing.document.facturx', { document_id: id });
    expect(pdf.toString('base64')).toBe(facturx.pdf_base64);
    const embedded = await onFile(pdf, 'qpdf', (file) => ['--show-attachment=factur-x.xml', file]);
    expect(Buffer.from(embedded, 'utf8').toString('base64')).toBe(facturx.embedded_xml_base64);
    expect(embedded).toContain(`<ram:ID>${number}</ram:ID>`);
  });

  it('refuses a draft, and a recipient-less document names the to field', async () => {
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      lines: [{ item_name: 'Beratung', quantity: 1, unit_price: 100, tax_percent: 19 }],
    });
    const refusedDraft = await refusal(
      billing.run('billing.document.send', { document_id: draft.document_id }),
    );
    expect(refusedDraft.code).toBe('conflict');
    await billing.run('billing.document.finalize', { document_id: draft.document_id });
    const noRecipient = await refusal(
      billing.run('billing.document.send', { document_id: draft.document_id }),
    );
    expect(noRecipient.code).toBe('validation_failed');
    expect(noRecipient.message).toContain('/params/to');
  });
});
