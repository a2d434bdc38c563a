// The e-invoice matrix through the database, as an agent makes it: profile, bank account and customer
// saved, each document drafted and finalized through the real capabilities, then rendered as PDF,
// XRechnung and Factur-X. Every XML has zero fatal findings from the official rules, and the totals
// and VAT breakdown that come back out of the database and the XML are the ones the billing domain
// computes in memory for the same input. CI runs this on PGlite and on PostgreSQL.

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CounterpartySnapshot } from '../../../packages/capabilities/src/billing/records.js';
import {
  BANK,
  buyerOf,
  EINVOICE_MATRIX,
  ISSUER,
  type Spec,
} from '../../../packages/capabilities/test/fixtures/einvoice-matrix.js';
import { billingClient } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const run = promisify(execFile);
const gateway = useGateway();
let billing: ReturnType<typeof billingClient>;
const accounts = new Map<CounterpartySnapshot, string>();

/** `qpdf --show-attachment=factur-x.xml` of a PDF. */
async function facturXmlOf(pdf: Buffer): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'agw-matrix-'));
  try {
    const file = join(directory, 'facturx.pdf');
    await writeFile(file, pdf);
    return (await run('qpdf', ['--show-attachment=factur-x.xml', file], { maxBuffer: 16 * 1024 * 1024 }))
      .stdout;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The customer account of a matrix buyer, saved once per buyer. */
async function accountOf(buyer: CounterpartySnapshot): Promise<string> {
  const known = accounts.get(buyer);
  if (known !== undefined) return known;
  const saved = await billing.run('billing.account.save', {
    name: buyer.name as string,
    legal_name: buyer.legal_name ?? null,
    address_line1: buyer.address_line1 ?? null,
    postal_code: buyer.postal_code ?? null,
    city: buyer.city ?? null,
    state: buyer.state ?? null,
    country_code: buyer.country_code ?? null,
    vat_id: buyer.vat_id ?? null,
    email: buyer.email ?? null,
    buyer_reference: buyer.buyer_reference ?? null,
    payment_terms_days: 14,
  });
  accounts.set(buyer, saved.account.id);
  return saved.account.id;
}

/** create_draft then finalize of a matrix spec (as `type`); answers the document id. */
async function issue(spec: Spec, type: 'invoice' | 'credit_note', correctsId?: string): Promise<string> {
  const draft = await billing.run('billing.document.create_draft', {
    document_type: type,
    document_date: '2026-11-20',
    account_id: await accountOf(buyerOf(spec)),
    title: spec.name,
    currency: spec.currency ?? 'EUR',
    tax_treatment: spec.treatment ?? 'domestic',
    ...(spec.exchangeRate === undefined ? {} : { exchange_rate: spec.exchangeRate }),
    service_date: spec.serviceDate ?? null,
    notes: spec.notes ?? null,
    ...(correctsId === undefined ? {} : { corrects_document_id: correctsId }),
    lines: spec.lines.map((line) => ({
      item_name: line.name,
      description: line.description ?? null,
      unit: line.unit ?? null,
      quantity: Number(line.quantity),
      unit_price: Number(line.unit_price),
      tax_percent: Number(line.tax_percent),
      ...(line.discount_amount === undefined ? {} : { discount_amount: Number(line.discount_amount) }),
    })),
    document_discounts: (spec.discounts ?? []).map((discount) => ({
      amount: Number(discount.amount),
      ...(discount.tax_percent === undefined ? {} : { tax_percent: Number(discount.tax_percent) }),
      reason: discount.reason ?? null,
    })),
  });
  await billing.run('billing.document.finalize', { document_id: draft.document_id });
  return draft.document_id;
}

/** The UBL VAT breakdown as [category, percent, taxable, tax] rows (amounts as numbers). */
function ublBreakdown(xml: string): (string | number)[][] {
  return [...xml.matchAll(/<cac:TaxSubtotal>([\s\S]*?)<\/cac:TaxSubtotal>/g)].map(([, row = '']) => [
    /<cbc:ID>([^<]+)<\/cbc:ID>/.exec(row)?.[1] ?? '',
    Number(/<cbc:Percent>([^<]+)<\/cbc:Percent>/.exec(row)?.[1]),
    Number(/<cbc:TaxableAmount[^>]*>([^<]+)</.exec(row)?.[1]),
    Number(/<cbc:TaxAmount[^>]*>([^<]+)</.exec(row)?.[1]),
  ]);
}

/** The number in the first `<name …>value<` of `xml`. */
const amountIn = (xml: string, name: string) => Number(new RegExp(`<${name}[^>]*>([^<]+)<`).exec(xml)?.[1]);

const fatalOf = (validation: unknown) =>
  (validation as { rule_sets: { name: string; fatal: number }[] }).rule_sets.map((set) => [
    set.name,
    set.fatal,
  ]);

beforeAll(async () => {
  billing = billingClient(gateway, (await approvedInstallation(gateway, '1000')).key);
  const bank = await billing.run('billing.bank_account.save', {
    display_name: BANK.display_name as string,
    account_holder: BANK.account_holder as string,
    iban: BANK.iban as string,
    bic: BANK.bic as string,
  });
  await billing.run('billing.profile.save', {
    display_name: ISSUER.issuer_name as string,
    issuer_name: ISSUER.issuer_name as string,
    issuer_legal_name: ISSUER.issuer_legal_name as string,
    issuer_address_line1: ISSUER.issuer_address_line1 as string,
    issuer_postal_code: ISSUER.issuer_postal_code as string,
    issuer_city: ISSUER.issuer_city as string,
    issuer_country: ISSUER.issuer_country as string,
    issuer_vat_id: ISSUER.issuer_vat_id as string,
    issuer_email: ISSUER.issuer_email as string,
    issuer_phone: ISSUER.issuer_phone as string,
    payment_terms: ISSUER.payment_terms as string,
    legal_footer_lines: [...(ISSUER.legal_footer_lines ?? [])],
    locale: 'de-DE',
    default_bank_account_id: bank.bank_account.id,
  });
});

describe('the e-invoice matrix through the database', () => {
  it.each(EINVOICE_MATRIX)('"$name": finalized, then PDF, XRechnung and Factur-X', async ({ spec, doc }) => {
    const expected = doc.document;
    const type = expected.document_type as 'invoice' | 'credit_note';
    // A credit note corrects an issued invoice of the same content (it may not exceed its balance).
    const correctsId = type === 'credit_note' ? await issue(spec, 'invoice') : undefined;
    const id = await issue(spec, type, correctsId);

    const read = await billing.run('billing.document.read', { document_id: id });
    expect(read.document).toMatchObject({
      document_type: type,
      status: type === 'credit_note' ? 'closed' : 'open',
      currency: expected.currency,
      subtotal: Number(expected.subtotal),
      discount_total: Number(expected.discount_total),
      tax_total: Number(expected.tax_total),
      reverse_charge_tax_total: Number(expected.reverse_charge_tax_total),
      total: Number(expected.total),
    });
    // The VAT total in EUR of a foreign-currency document, as finalize froze it (BT-6, BT-111).
    if (expected.tax_total_accounting !== null) {
      const xml = Buffer.from(
        (await billing.run('billing.document.xrechnung', { document_id: id })).xml_base64,
        'base64',
      ).toString('utf8');
      expect(xml).toContain(`<cbc:TaxCurrencyCode>${expected.vat_accounting_currency}</cbc:TaxCurrencyCode>`);
      expect(xml).toContain(
        `<cbc:TaxAmount currencyID="${expected.vat_accounting_currency}">${Number(expected.tax_total_accounting)}</cbc:TaxAmount>`,
      );
    }
    expect(read.lines.map((line) => line.line_total)).toEqual(
      doc.lines.map((line) => Number(line.line_total)),
    );

    const pdf = await billing.run('billing.document.pdf', { document_id: id });
    expect(pdf.archive).toMatchObject({ format: 'pdf' });

    const xrechnung = await billing.run('billing.document.xrechnung', { document_id: id });
    expect(fatalOf(xrechnung.validation)).toEqual([
      [type === 'credit_note' ? 'UBL 2.1 CreditNote XSD' : 'UBL 2.1 Invoice XSD', 0],
      ['EN 16931 UBL Schematron (CEN)', 0],
      ['XRechnung UBL Schematron (KoSIT)', 0],
    ]);
    const ubl = Buffer.from(xrechnung.xml_base64, 'base64').toString('utf8');
    expect(ublBreakdown(ubl)).toEqual(
      expected.tax_breakdown.map((row) => [
        row.category,
        Number(row.percent),
        Number(row.taxable_amount),
        Number(row.tax_amount),
      ]),
    );
    expect(amountIn(ubl, 'cbc:PayableAmount')).toBe(Number(expected.total));
    expect(ubl).toContain(`<cbc:PayableAmount currencyID="${expected.currency}">`);

    const facturx = await billing.run('billing.document.facturx', { document_id: id });
    expect(fatalOf(facturx.validation)).toEqual([
      ['Factur-X EN 16931 XSD', 0],
      ['UN/CEFACT CII D16B XSD', 0],
      ['Factur-X EN 16931 Schematron (FNFE/FeRD)', 0],
      ['EN 16931 CII Schematron (CEN)', 0],
    ]);
    const cii = await facturXmlOf(Buffer.from(facturx.pdf_base64, 'base64'));
    expect(Buffer.from(cii, 'utf8').toString('base64')).toBe(facturx.embedded_xml_base64);
    expect(amountIn(cii, 'ram:GrandTotalAmount')).toBe(Number(expected.total));
    expect(amountIn(cii, 'ram:TaxBasisTotalAmount')).toBe(Number(expected.net_total));
  });
});
