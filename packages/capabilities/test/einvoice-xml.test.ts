// The e-invoice XML the billing outputs make, checked by the official rules in process: every document
// of the matrix as XRechnung (UBL) and Factur-X (CII) with zero error-level findings from the XSD, the
// CEN EN 16931 rules and the XRechnung / Factur-X rules; the official samples pass; the broken ones
// are refused with the rule ids the official validator reports; missing data is named by business term.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderFacturX, renderXRechnung } from '../src/billing/outputs/render.js';
import {
  loadSchematron,
  refuseInvalid,
  SCHEMATRON_NAMES,
  validateEInvoice,
} from '../src/billing/outputs/validate/index.js';
import { passesIbanRule } from '../src/billing/outputs/validate/saxonjs-artefacts.js';
import { ciiFacturX, missingBusinessTerms, xrechnungUbl } from '../src/billing/outputs/xml/index.js';
import { CapabilityError } from '../src/define.js';
import { BANK, EINVOICE_MATRIX, frozenDocument } from './fixtures/einvoice-matrix.js';

const sample = (file: string) =>
  readFileSync(join(import.meta.dirname, 'fixtures', 'einvoice-samples', file), 'utf8');

beforeAll(() => loadSchematron(SCHEMATRON_NAMES), 60_000);

describe('the matrix of finalized documents', () => {
  it('has at least 12 documents with every VAT category, discounts, credit notes and a 60-line invoice', () => {
    expect(EINVOICE_MATRIX.length).toBeGreaterThanOrEqual(12);
    const categories = new Set(
      EINVOICE_MATRIX.flatMap(({ doc }) => doc.document.tax_breakdown.map((row) => row.category)),
    );
    expect([...categories].sort()).toEqual(['AE', 'E', 'G', 'K', 'O', 'S', 'Z']);
    expect(
      EINVOICE_MATRIX.filter(({ doc }) => doc.document.document_type === 'credit_note').length,
    ).toBeGreaterThanOrEqual(2);
    expect(Math.max(...EINVOICE_MATRIX.map(({ doc }) => doc.lines.length))).toBeGreaterThanOrEqual(60);
  });

  it.each(EINVOICE_MATRIX)(
    'XRechnung UBL of "$name" passes XSD, EN 16931 and XRechnung rules',
    async ({ doc }) => {
      const xml = xrechnungUbl(doc);
      const report = await validateEInvoice(xml, 'xrechnung-ubl');
      expect(report.errors).toEqual([]);
      expect(report.rule_sets.map((set) => set.name)).toEqual([
        doc.document.document_type === 'credit_note' ? 'UBL 2.1 CreditNote XSD' : 'UBL 2.1 Invoice XSD',
        'EN 16931 UBL Schematron (CEN)',
        'XRechnung UBL Schematron (KoSIT)',
      ]);
      expect(xml).toContain(`<cbc:ID>${doc.document.number}</cbc:ID>`);
      expect(xml).toContain(`<cbc:PayableAmount currencyID="${doc.document.currency}">`);
    },
  );

  it.each(EINVOICE_MATRIX)(
    'Factur-X CII of "$name" passes the Factur-X and EN 16931 rules',
    async ({ doc }) => {
      const report = await validateEInvoice(ciiFacturX(doc), 'facturx-cii');
      expect(report.errors).toEqual([]);
      expect(report.rule_sets.map((set) => set.name)).toEqual([
        'Factur-X EN 16931 XSD',
        'UN/CEFACT CII D16B XSD',
        'Factur-X EN 16931 Schematron (FNFE/FeRD)',
        'EN 16931 CII Schematron (CEN)',
      ]);
    },
  );
});

describe('not subject to VAT (O)', () => {
  const outside = EINVOICE_MATRIX.find(({ doc }) => doc.document.tax_treatment === 'not_subject_to_vat')?.doc;

  it('is one O group at no VAT with its VATEX code, lines and discounts without a rate, and no VAT ids', () => {
    if (outside === undefined) throw new Error('the matrix has no O document');
    expect(outside.document.tax_breakdown).toEqual([
      expect.objectContaining({ category: 'O', tax_amount: '0.00', exemption_reason: 'Not subject to VAT' }),
    ]);
    expect(outside.document.total).toBe(outside.document.net_total);
    const ubl = xrechnungUbl(outside);
    expect(ubl).toContain('<cbc:TaxExemptionReasonCode>VATEX-EU-O</cbc:TaxExemptionReasonCode>');
    // BR-O-02: no VAT identifier of the seller or buyer; the seller is identified by BT-29 instead.
    expect(ubl).not.toMatch(/<cac:PartyTaxScheme>/);
    expect(ubl).toMatch(/<cac:PartyIdentification>\s*<cbc:ID>DE123456789<\/cbc:ID>/);
    // BR-O-05 / BR-O-06: no rate on a line or a document allowance.
    const classified = [
      ...ubl.matchAll(/<cac:ClassifiedTaxCategory>([\s\S]*?)<\/cac:ClassifiedTaxCategory>/g),
    ];
    expect(classified.length).toBe(outside.lines.length);
    expect(
      classified.every(([block]) => block.includes('<cbc:ID>O</cbc:ID>') && !block.includes('Percent')),
    ).toBe(true);
    const cii = ciiFacturX(outside);
    expect(cii).not.toContain('schemeID="VA"');
    expect(cii).toContain('<ram:ExemptionReasonCode>VATEX-EU-O</ram:ExemptionReasonCode>');
  });
});

describe('a foreign-currency invoice with VAT', () => {
  const usd = EINVOICE_MATRIX.find(
    ({ doc }) => doc.document.currency === 'USD' && doc.document.tax_total !== '0.00',
  )?.doc;

  it('states the VAT accounting currency EUR (BT-6) and the VAT total in EUR (BT-111) in UBL and CII', () => {
    if (usd === undefined) throw new Error('the matrix has no USD invoice with VAT');
    // 4350.00 × 19 % = 826.50 and 119.70 × 7 % = 8.38 → 834.88 USD; × 0.9215 = 769.342 → 769.34 EUR.
    expect(usd.document).toMatchObject({
      tax_total: '834.88',
      vat_accounting_currency: 'EUR',
      exchange_rate: '0.9215',
      tax_total_accounting: '769.34',
    });
    const ubl = xrechnungUbl(usd);
    expect(ubl).toContain('<cbc:DocumentCurrencyCode>USD</cbc:DocumentCurrencyCode>');
    expect(ubl).toContain('<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>');
    expect(ubl).toMatch(
      /<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="EUR">769.34<\/cbc:TaxAmount>\s*<\/cac:TaxTotal>/,
    );
    const cii = ciiFacturX(usd);
    expect(cii).toContain('<ram:TaxCurrencyCode>EUR</ram:TaxCurrencyCode>');
    expect(cii).toContain('<ram:TaxTotalAmount currencyID="USD">834.88</ram:TaxTotalAmount>');
    expect(cii).toContain('<ram:TaxTotalAmount currencyID="EUR">769.34</ram:TaxTotalAmount>');
  });

  it('the official rules refuse it without the EUR total once BT-6 is stated (BR-53)', async () => {
    if (usd === undefined) throw new Error('the matrix has no USD invoice with VAT');
    const withoutEuroTotal = xrechnungUbl(usd).replace(
      /<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="EUR">[^<]*<\/cbc:TaxAmount>\s*<\/cac:TaxTotal>/,
      '',
    );
    const report = await validateEInvoice(withoutEuroTotal, 'xrechnung-ubl');
    expect(report.errors.map((error) => error.rule)).toContain('BR-53');
  });
});

describe('the official samples', () => {
  it.each([
    ['01.01a-INVOICE_ubl.xml', 'xrechnung-ubl'],
    ['01.01a-INVOICE_uncefact.xml', 'xrechnung-cii'],
    ['EN16931_Einfach.factur-x.xml', 'facturx-cii'],
    ['ubl-tc434-creditnote1.xml', 'en16931-ubl'],
    ['CII_example1.xml', 'en16931-cii'],
  ] as const)('%s is valid as %s', async (file, kind) => {
    const report = await validateEInvoice(sample(file), kind);
    expect(report.errors).toEqual([]);
    expect(report.valid).toBe(true);
  });

  it('the invoice without a buyer reference and with a wrong payable amount breaks BR-CO-16 and BR-DE-15', async () => {
    const report = await validateEInvoice(
      sample('01.01a-INVOICE_ubl.no-BuyerReference.wrong-PayableAmount.xml'),
      'xrechnung-ubl',
    );
    expect(report.valid).toBe(false);
    expect(report.errors.map((error) => error.rule).sort()).toEqual(['BR-CO-16', 'BR-DE-15']);
  });

  it('the invoice with an unexpected element is refused by the schema, naming the element', async () => {
    const report = await validateEInvoice(
      sample('01.01a-INVOICE_ubl.unexpected-element.xml'),
      'xrechnung-ubl',
    );
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([
      expect.objectContaining({ rule: 'XSD', message: expect.stringContaining('Foo') }),
    ]);
    expect(report.rule_sets).toHaveLength(1);
  });
});

describe('the validator kept warm', () => {
  it('answers concurrent documents each with its own findings (one xmllint worker, one SaxonJS)', async () => {
    const valid = sample('01.01a-INVOICE_ubl.xml');
    const broken = sample('01.01a-INVOICE_ubl.unexpected-element.xml');
    const reports = await Promise.all(
      [valid, broken, valid, broken, valid].map((xml) => validateEInvoice(xml, 'xrechnung-ubl')),
    );
    expect(reports.map((report) => report.valid)).toEqual([true, false, true, false, true]);
    expect(reports[1]?.errors[0]?.message).toContain('Foo');
  });
});

describe('BR-DE-19 (IBAN) as KoSIT computes it, not as SaxonJS does', () => {
  it('is not reported for a correct IBAN, and still reported for a wrong one', async () => {
    expect(passesIbanRule('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(passesIbanRule('DE88370400440532013000')).toBe(false);
    const [{ doc }] = EINVOICE_MATRIX as [(typeof EINVOICE_MATRIX)[number]];
    const rules = async (iban: string) => {
      const xml = xrechnungUbl({ ...doc, document: { ...doc.document, bank_account: { ...BANK, iban } } });
      const report = await validateEInvoice(xml, 'xrechnung-ubl');
      return [
        ...report.warnings.map((warning) => warning.split(' ')[0]),
        ...report.errors.map((error) => error.rule),
      ];
    };
    expect(await rules('DE89370400440532013000')).not.toContain('BR-DE-19');
    expect(await rules('DE88370400440532013000')).toContain('BR-DE-19');
  });
});

describe('refusal after validation, and warnings', () => {
  /** The CapabilityError `work` throws; fails the test when it throws nothing or something else. */
  async function refusalOf(work: () => unknown): Promise<CapabilityError> {
    try {
      await work();
    } catch (error) {
      if (error instanceof CapabilityError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  }

  it('the official invalid sample is refused with validation_failed naming BR-CO-16 and BR-DE-15', async () => {
    const report = await validateEInvoice(
      sample('01.01a-INVOICE_ubl.no-BuyerReference.wrong-PayableAmount.xml'),
      'xrechnung-ubl',
    );
    const refused = await refusalOf(() => refuseInvalid(report));
    expect(refused.code).toBe('validation_failed');
    expect(refused.message).toMatch(
      /^The e-invoice breaks official rules (BR-CO-16, BR-DE-15|BR-DE-15, BR-CO-16):/,
    );
    expect(refused.violations.map((violation) => violation.keyword).sort()).toEqual(['BR-CO-16', 'BR-DE-15']);
    expect(refused.violations.every((violation) => violation.schema_pointer === '/params/document_id')).toBe(
      true,
    );
  });

  it('a document whose stored total does not add up is refused by the rules before any XML leaves', async () => {
    const [{ doc }] = EINVOICE_MATRIX as [(typeof EINVOICE_MATRIX)[number]];
    // A net total that is not the sum of the lines: schema-valid XML, but BR-CO-13 fails.
    const tampered = { ...doc, document: { ...doc.document, net_total: '1000.00', total: '1190.00' } };
    for (const render of [renderXRechnung, renderFacturX]) {
      const refused = await refusalOf(() => render(tampered));
      expect(refused.code).toBe('validation_failed');
      expect(refused.message).toContain('BR-CO-13');
      expect(refused.violations.map((violation) => violation.keyword)).toContain('BR-CO-13');
    }
  });

  it('warning and information findings come back in warnings[] and do not refuse the document', async () => {
    const report = await validateEInvoice(sample('01.01a-INVOICE_ubl.xml'), 'xrechnung-ubl');
    expect(report.valid).toBe(true);
    expect(report.warnings).toEqual([
      expect.stringMatching(/^BR-DE-TMP-32 \(information\): \[BR-DE-TMP-32\]/),
    ]);
    expect(report.rule_sets.find((set) => set.name.startsWith('XRechnung'))).toMatchObject({
      fatal: 0,
      warnings: 1,
    });
    expect(() => refuseInvalid(report)).not.toThrow();
    // Through the renderer: an invoice without a delivery date or period gets BR-DE-TMP-32 too.
    const [{ doc }] = EINVOICE_MATRIX as [(typeof EINVOICE_MATRIX)[number]];
    expect(doc.document.service_date).toBeNull();
    const rendered = await renderXRechnung(doc);
    expect(rendered.details.validation?.valid).toBe(true);
    expect(rendered.details.validation?.warnings).toContainEqual(
      expect.stringMatching(/^BR-DE-TMP-32 \(information\)/),
    );
  });
});

describe('what cannot make a valid e-invoice', () => {
  it('names BT-10 when the buyer reference is missing, and nothing when it is there', () => {
    const [{ doc }] = EINVOICE_MATRIX as [(typeof EINVOICE_MATRIX)[number]];
    expect(missingBusinessTerms(doc, 'xrechnung')).toEqual([]);
    const withoutReference = frozenDocument({
      name: 'no buyer reference',
      buyer: {
        name: 'Müller Bau GmbH',
        city: 'Köln',
        postal_code: '50667',
        country_code: 'DE',
        email: 'a@b.example',
      },
      lines: [{ name: 'Beratung', quantity: 1, unit_price: 100, tax_percent: 19 }],
    });
    const missing = missingBusinessTerms(withoutReference, 'xrechnung');
    expect(missing).toEqual([expect.stringContaining('BT-10 buyer reference is required for XRechnung')]);
    expect(missing[0]).toContain("account's buyer_reference");
    // Factur-X has no BT-10 duty.
    expect(missingBusinessTerms(withoutReference, 'facturx')).toEqual([]);
  });

  it('names the buyer VAT identifier for a reverse-charge invoice to a buyer without one', () => {
    const doc = frozenDocument({
      name: 'reverse charge without buyer VAT id',
      treatment: 'reverse_charge',
      buyer: {
        name: 'Client SARL',
        city: 'Lyon',
        postal_code: '69001',
        country_code: 'FR',
        buyer_reference: 'X',
      },
      lines: [{ name: 'Conseil', quantity: 1, unit_price: 100, tax_percent: 19 }],
    });
    expect(missingBusinessTerms(doc, 'facturx')).toEqual([
      expect.stringContaining('BT-48 buyer VAT identifier'),
    ]);
  });
});
