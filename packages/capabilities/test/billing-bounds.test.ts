// Issue 26, findings 1, 5 and 9 as the billing contracts and totals see them: a document takes at most
// MAX_DOCUMENT_LINES lines; a line amount or total the numeric(20,6) columns cannot hold is a 400 at the
// line (it was a 500 "numeric field overflow"); texts that reach a document refuse control characters;
// a currency is an ISO 4217 code.

import { createValidator, findCapabilityContract } from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_LINES } from '../src/billing/bounds.js';
import { computeTotals } from '../src/billing/totals.js';
import { CapabilityError } from '../src/define.js';

const validator = createValidator();

/** The violations of `params` against the input schema of `id` (empty when accepted). */
function violations(id: string, params: unknown): { pointer: string; keyword: string }[] {
  const contract = findCapabilityContract(id);
  if (contract === undefined) throw new Error(`no contract ${id}`);
  const verdict = validator.validate(contract.input_schema, params);
  return verdict.valid
    ? []
    : verdict.violations.map((violation) => ({
        pointer: violation.schema_pointer,
        keyword: violation.keyword,
      }));
}

const line = (index: number) => ({ item_name: `Position ${index + 1}`, quantity: 1, unit_price: 10 });
const draft = (extra: Record<string, unknown> = {}) => ({
  document_type: 'invoice',
  document_date: '2026-03-01',
  lines: [line(0)],
  ...extra,
});

describe('lines of a document', () => {
  it(`${MAX_DOCUMENT_LINES} lines are accepted, one more is refused at /lines`, () => {
    expect(MAX_DOCUMENT_LINES).toBe(250);
    const lines = Array.from({ length: MAX_DOCUMENT_LINES }, (_, index) => line(index));
    expect(violations('billing.document.create_draft', draft({ lines }))).toEqual([]);
    expect(violations('billing.document.create_draft', draft({ lines: [...lines, line(250)] }))).toEqual([
      { pointer: '/lines', keyword: 'maxItems' },
    ]);
  });
});

describe('amounts the database holds', () => {
  const totals = (lines: { quantity: number; unit_price: number }[], taxPercent = 19) =>
    computeTotals({
      currency: 'EUR',
      tax_treatment: 'domestic',
      lines: lines.map((amounts) => ({ ...amounts, tax_percent: taxPercent })),
    });
  const refusalOf = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (error instanceof CapabilityError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  };

  it('quantity × unit price past 10^12 is validation_failed at the line, though each is within its bound', () => {
    const lines = [
      { quantity: 1, unit_price: 10 },
      { quantity: 1_000_000, unit_price: 100_000_000 },
    ];
    expect(
      violations(
        'billing.document.create_draft',
        draft({ lines: lines.map((l, i) => ({ ...line(i), ...l })) }),
      ),
    ).toEqual([]);
    const error = refusalOf(() => totals(lines));
    expect(error.code).toBe('validation_failed');
    expect(error.violations[0]?.schema_pointer).toBe('/params/lines/1');
  });

  it('lines each within 10^12 whose sum is past it are refused at /lines; 10^12 itself is held', () => {
    expect(totals([{ quantity: 1, unit_price: 1_000_000_000_000 }], 0).total).toBe('1000000000000.00');
    const error = refusalOf(() =>
      totals([
        { quantity: 1, unit_price: 600_000_000_000 },
        { quantity: 1, unit_price: 600_000_000_000 },
      ]),
    );
    expect(error.violations[0]?.schema_pointer).toBe('/params/lines');
    // 19 % VAT on 10^12 makes a total past it.
    expect(refusalOf(() => totals([{ quantity: 1, unit_price: 1_000_000_000_000 }]).total).message).toMatch(
      /total with VAT/,
    );
  });
});

describe('texts that reach a document refuse control characters', () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['billing.account.save', '/name', { name: 'Müller\u0001Bau' }],
    ['billing.account.save', '/address_line1', { name: 'Müller Bau', address_line1: 'Amtsweg 5\u001b[31m' }],
    ['billing.account.save', '/city', { name: 'Müller Bau', city: 'Hamburg\nBremen' }],
    ['billing.account.save', '/notes', { name: 'Müller Bau', notes: 'call first\u0000' }],
    [
      'billing.profile.save',
      '/issuer_address_line1',
      { display_name: 'Acme', issuer_address_line1: 'Große Str.\u0007' },
    ],
    ['billing.profile.save', '/footer_text', { display_name: 'Acme', footer_text: 'HRB 1234\u001b' }],
    [
      'billing.profile.save',
      '/legal_footer_lines/0',
      { display_name: 'Acme', legal_footer_lines: ['GF: A\rB'] },
    ],
    [
      'billing.item.save',
      '/unit',
      { name: 'Beratung', item_type: 'service', unit_price: 1, unit: 'h\u0085' },
    ],
    [
      'billing.item.save',
      '/description',
      { name: 'Beratung', item_type: 'service', unit_price: 1, description: '\u0002' },
    ],
  ];

  it.each(cases)('%s %s', (id, pointer, params) => {
    expect(violations(id, params)).toContainEqual({ pointer, keyword: 'format' });
  });

  it('a line of a draft: its name, unit and description', () => {
    const lines = [{ ...line(0), item_name: 'A\u0001', unit: 'h\u001b', description: 'x\u0000' }];
    const found = violations('billing.document.create_draft', draft({ lines }));
    // A nullable text reports its format and its null alternative: one pointer each is what counts.
    expect([...new Set(found.map((violation) => violation.pointer))].sort()).toEqual([
      '/lines/0/description',
      '/lines/0/item_name',
      '/lines/0/unit',
    ]);
  });

  it('line breaks and tabs stay allowed in notes, descriptions, terms and footers', () => {
    const text = 'Zeile 1\r\nZeile 2\tEnde';
    expect(violations('billing.account.save', { name: 'Müller Bau', notes: text })).toEqual([]);
    expect(
      violations('billing.profile.save', { display_name: 'Acme', footer_text: text, invoice_terms: text }),
    ).toEqual([]);
    expect(
      violations(
        'billing.document.create_draft',
        draft({ notes: text, lines: [{ ...line(0), description: text }] }),
      ),
    ).toEqual([]);
  });
});

describe('currency codes are ISO 4217', () => {
  it.each(['ABC', 'XXX', 'eur', 'XTS', 'EU'])('%s is refused', (currency) => {
    expect(violations('billing.document.create_draft', draft({ currency }))).toContainEqual({
      pointer: '/currency',
      keyword: 'enum',
    });
    expect(
      violations('billing.account.save', { name: 'Müller Bau', default_currency: currency }).length,
    ).toBeGreaterThan(0);
  });

  it.each(['EUR', 'JPY', 'BHD', 'CHF', 'XOF'])('%s is accepted', (currency) => {
    expect(violations('billing.document.create_draft', draft({ currency }))).toEqual([]);
    expect(
      violations('billing.item.save', { name: 'Beratung', item_type: 'service', unit_price: 1, currency }),
    ).toEqual([]);
  });
});
