// The billing PDF as a reader, an archive and a Factur-X consumer see it: every document of the
// matrix renders as a PDF/A-3b that qpdf accepts, with every font embedded, the same bytes on every
// render, no line item and no totals block split across pages; a draft carries its mark and no
// number; Factur-X embeds exactly the XML with the relationship and XMP the standard asks for.

import { describe, expect, it, vi } from 'vitest';
import { renderDocumentPdf } from '../src/billing/outputs/pdf/index.js';
import { ciiFacturX } from '../src/billing/outputs/xml/index.js';
import { EINVOICE_MATRIX, frozenDocument, ISSUER } from './fixtures/einvoice-matrix.js';
import { fontsOf, onPdf, pagesOf, pdfChecksSkipReason } from './helpers/pdf-tools.js';

// Skips only outside CI; in CI a missing qpdf or poppler-utils fails the file (tests/helpers/require-tool.ts).
const missing = pdfChecksSkipReason();
const euro = (value: string) => `${value} €`;

describe.skipIf(missing !== undefined)(missing ? `billing PDF (skipped: ${missing})` : 'billing PDF', () => {
  it.each(EINVOICE_MATRIX)(
    '"$name": PDF/A-3b, fonts embedded, number, total and IBAN shown',
    async ({ doc }) => {
      const bytes = await renderDocumentPdf(doc);
      await onPdf(bytes, 'qpdf', (file) => ['--check', file]);
      const info = await onPdf(bytes, 'pdfinfo', (file) => ['-meta', file]);
      expect(info).toContain('<pdfaid:part>3</pdfaid:part>');
      expect(info).toContain('<pdfaid:conformance>B</pdfaid:conformance>');
      const fonts = await fontsOf(bytes);
      expect(fonts.map((font) => font.name.replace(/^[A-Z]{6}\+/, '')).sort()).toEqual([
        'NotoSans-Bold',
        'NotoSans-Regular',
      ]);
      expect(fonts.every((font) => font.embedded)).toBe(true);
      const text = (await pagesOf(bytes)).join('\n');
      expect(text).toContain(doc.document.number as string);
      expect(text).toContain(doc.document.document_type === 'credit_note' ? 'Gutschrift' : 'Rechnung');
      if (doc.document.document_type === 'invoice') expect(text).toContain('DE89 3704 0044 0532 0130 00');
      // The same document, the same bytes: the archive depends on it.
      expect((await renderDocumentPdf(doc)).equals(bytes)).toBe(true);
    },
  );

  it('shows German amounts with umlauts, ß and € as entered, the VAT per rate and the total', async () => {
    const [{ doc }] = EINVOICE_MATRIX as [(typeof EINVOICE_MATRIX)[number]];
    const text = (await pagesOf(await renderDocumentPdf(doc))).join('\n');
    expect(text).toContain('Acme Prüftechnik GmbH');
    expect(text).toContain('Geschäftsführerin: Dana Groß');
    expect(text).toContain(`USt. 19 % auf ${euro('900,00')}`);
    expect(text).toContain(`USt. 7 % auf ${euro('57,47')}`);
    expect(text).toMatch(/Gesamtbetrag\s+1\.132,49 €/);
    expect(text).toContain('20.11.2026');
  });

  it('a document not subject to VAT says so in its totals and names the reason', async () => {
    const outside = EINVOICE_MATRIX.find(
      ({ doc }) => doc.document.tax_treatment === 'not_subject_to_vat',
    )?.doc;
    if (outside === undefined) throw new Error('the matrix has no O document');
    const text = (await pagesOf(await renderDocumentPdf(outside))).join('\n');
    expect(text).toMatch(/USt\. nicht steuerbar auf 2\.840,00 €\s+0,00 €/);
    expect(text).toContain('O: Not subject to VAT');
    expect(text).toMatch(/Gesamtbetrag\s+2\.840,00 €/);
  });

  it('a USD invoice shows its VAT total in EUR with the exchange rate', async () => {
    const usd = EINVOICE_MATRIX.find(({ doc }) => doc.document.tax_total_accounting !== null)?.doc;
    if (usd === undefined) throw new Error('the matrix has no document with a VAT total in EUR');
    const text = (await pagesOf(await renderDocumentPdf(usd))).join('\n');
    expect(text).toMatch(/Gesamtbetrag\s+5\.304,58 \$/);
    expect(text).toMatch(/USt\. gesamt in EUR \(Kurs 1 USD = 0,9215 EUR\)\s+769,34 €/);
  });

  it('formats an en-US document in English', async () => {
    const doc = frozenDocument({
      name: 'english',
      lines: [{ name: 'Consulting hour', quantity: 10, unit_price: 123.45, tax_percent: 19 }],
    });
    const english = { ...doc, document: { ...doc.document, issuer: { ...ISSUER, locale: 'en-US' } } };
    const text = (await pagesOf(await renderDocumentPdf(english))).join('\n');
    expect(text).toContain(`Invoice ${doc.document.number}`);
    expect(text).toMatch(/Total\s+€1,469\.06/);
    expect(text).toContain('11/20/2026');
    expect(text).toContain('Page 1 of 1');
  });

  it('prints units by name in the document language, the bank name beside IBAN and BIC', async () => {
    const doc = frozenDocument({
      name: 'units',
      lines: [
        { name: 'Beratung', quantity: 3, unit: 'HUR', unit_price: 100, tax_percent: 19 },
        { name: 'Adapter', quantity: 4, unit: 'C62', unit_price: 10, tax_percent: 19 },
        { name: 'Kabel', quantity: 2, unit: 'm', unit_price: 5, tax_percent: 19 },
        { name: 'Lizenz', quantity: 1, unit: 'Lizenz', unit_price: 50, tax_percent: 19 },
        { name: 'Sonder', quantity: 1, unit: 'XZZ', unit_price: 1, tax_percent: 19 },
      ],
    });
    const german = (await pagesOf(await renderDocumentPdf(doc))).join('\n');
    expect(german).toContain('3 Std.');
    expect(german).toContain('4 Stk.');
    expect(german).toMatch(/\b2 ?m\b/); // pdftotext may close the gap of a short right-aligned cell
    expect(german).toContain('1 Lizenz');
    expect(german).toContain('1 XZZ');
    expect(german).not.toMatch(/HUR|C62/);
    expect(german).toContain('Bank: Commerzbank');
    expect(german).toContain('IBAN: DE89 3704 0044 0532 0130 00');
    const english = { ...doc, document: { ...doc.document, issuer: { ...ISSUER, locale: 'en-US' } } };
    const text = (await pagesOf(await renderDocumentPdf(english))).join('\n');
    expect(text).toMatch(/\b3 ?h\b/);
    expect(text).toContain('4 pcs');
    expect(text).not.toMatch(/HUR|C62/);
    expect(text).toContain('Bank: Commerzbank');
  });

  it('a long invoice runs over three pages and splits neither a line item nor the totals block', async () => {
    const long = EINVOICE_MATRIX.find(({ doc }) => doc.lines.length >= 60)?.doc;
    if (long === undefined) throw new Error('the matrix has no long invoice');
    const pages = await pagesOf(await renderDocumentPdf(long));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const [index, page] of pages.entries()) {
      expect(page).toContain(`Seite ${index + 1} von ${pages.length}`);
    }
    for (const line of long.lines) {
      const name = `Prüfposition ${line.position + 1}:`;
      const holding = pages.filter((page) => page.includes(name));
      expect(holding, name).toHaveLength(1);
      // The rest of its row (its description, when it has one) is on that same page.
      if (line.description) expect(holding[0]).toContain('17025');
    }
    const totals = pages.filter((page) => page.includes('Zwischensumme'));
    expect(totals).toHaveLength(1);
    expect(totals[0]).toContain('Gesamtbetrag');
    expect(totals[0]).toContain('USt. 7 %');
  });

  it('a draft shows a DRAFT mark on every page and no number, in the issuer language', async () => {
    const doc = frozenDocument({
      name: 'draft',
      lines: [{ name: 'Beratung', quantity: 1, unit_price: 100, tax_percent: 19 }],
    });
    const draft = { ...doc, document: { ...doc.document, status: 'draft', number: null, issued_at: null } };
    const text = (await pagesOf(await renderDocumentPdf(draft))).join('\n');
    expect(text).toContain('ENTWURF');
    expect(text).not.toContain(doc.document.number as string);
  });

  it.each(EINVOICE_MATRIX)(
    'Factur-X of "$name": factur-x.xml is the given XML, an Alternative associated file, declared in the XMP',
    async ({ doc }) => {
      const xml = ciiFacturX(doc);
      const bytes = await renderDocumentPdf(doc, { facturx: { xml } });
      await onPdf(bytes, 'qpdf', (file) => ['--check', file]);
      expect(await onPdf(bytes, 'qpdf', (file) => ['--show-attachment=factur-x.xml', file])).toBe(xml);
      const catalog = await onPdf(bytes, 'qpdf', (file) => ['--qdf', '--object-streams=disable', file, '-']);
      expect(catalog).toMatch(/\/AF \[/);
      expect(catalog).toMatch(/\/AFRelationship \/Alternative/);
      expect(catalog).toMatch(/\/Subtype \/text#2fxml/i);
      const xmp = await onPdf(bytes, 'pdfinfo', (file) => ['-meta', file]);
      for (const field of [
        '<fx:DocumentType>INVOICE</fx:DocumentType>',
        '<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>',
        '<fx:Version>1.0</fx:Version>',
        '<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>',
        '<pdfaSchema:prefix>fx</pdfaSchema:prefix>',
      ]) {
        expect(xmp).toContain(field);
      }
      const fonts = await fontsOf(bytes);
      expect(fonts.every((font) => font.embedded)).toBe(true);
      expect((await pagesOf(bytes)).join('\n')).toContain(doc.document.number as string);
    },
  );
});

describe('the PDF checks in CI', () => {
  it('fail instead of skipping when a tool is missing and CI is set, naming the tool', () => {
    vi.stubEnv('PATH', '/nonexistent');
    try {
      vi.stubEnv('CI', undefined);
      expect(pdfChecksSkipReason()).toBe('qpdf is missing: install it (scripts/ensure-test-tools.mjs)');
      vi.stubEnv('CI', 'true');
      expect(() => pdfChecksSkipReason()).toThrow(
        /^qpdf is missing: install it \(scripts\/ensure-test-tools.mjs\)/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
