// EN 16931 totals of billing documents, each case computed by hand: line net = round(qty × price) −
// discount, VAT once per (category, rate) group, half-up to the currency's minor units.

import { describe, expect, it } from 'vitest';
import { computeTotals, deriveTaxTreatment, type TotalsInput } from '../src/billing/totals.js';
import { CapabilityError } from '../src/define.js';

interface Expected {
  subtotal: string;
  discount_total: string;
  net_total: string;
  tax_total: string;
  reverse_charge_tax_total: string;
  total: string;
  groups: [category: string, percent: string, taxable: string, tax: string][];
}

const EUR = (input: Omit<TotalsInput, 'currency' | 'tax_treatment'> & Partial<TotalsInput>): TotalsInput => ({
  currency: 'EUR',
  tax_treatment: 'domestic',
  ...input,
});

const cases: [name: string, input: TotalsInput, expected: Expected][] = [
  [
    'one line at 19 %',
    EUR({ lines: [{ quantity: 2, unit_price: 50, tax_percent: 19 }] }),
    {
      subtotal: '100.00',
      discount_total: '0.00',
      net_total: '100.00',
      tax_total: '19.00',
      reverse_charge_tax_total: '0.00',
      total: '119.00',
      groups: [['S', '19', '100.00', '19.00']],
    },
  ],
  [
    'two rates in one document (19 % and 7 %)',
    EUR({
      lines: [
        { quantity: 1, unit_price: 100, tax_percent: 19 },
        { quantity: 3, unit_price: 10, tax_percent: 7 },
      ],
    }),
    {
      subtotal: '130.00',
      discount_total: '0.00',
      net_total: '130.00',
      tax_total: '21.10',
      reverse_charge_tax_total: '0.00',
      total: '151.10',
      groups: [
        ['S', '7', '30.00', '2.10'],
        ['S', '19', '100.00', '19.00'],
      ],
    },
  ],
  [
    '3 × 0.333 rounds the line to 1.00',
    EUR({ lines: [{ quantity: 3, unit_price: 0.333, tax_percent: 19 }] }),
    {
      subtotal: '1.00',
      discount_total: '0.00',
      net_total: '1.00',
      tax_total: '0.19',
      reverse_charge_tax_total: '0.00',
      total: '1.19',
      groups: [['S', '19', '1.00', '0.19']],
    },
  ],
  [
    '0.005 rounds half-up to 0.01 (a 0 % domestic line is Z)',
    EUR({ lines: [{ quantity: 1, unit_price: 0.005, tax_percent: 0 }] }),
    {
      subtotal: '0.01',
      discount_total: '0.00',
      net_total: '0.01',
      tax_total: '0.00',
      reverse_charge_tax_total: '0.00',
      total: '0.01',
      groups: [['Z', '0', '0.01', '0.00']],
    },
  ],
  [
    'VAT is rounded once per group, not per line (5 × 0.02 at 19 %: 0.019 → 0.02, lines would give 0)',
    EUR({ lines: Array.from({ length: 5 }, () => ({ quantity: 1, unit_price: 0.02, tax_percent: 19 })) }),
    {
      subtotal: '0.10',
      discount_total: '0.00',
      net_total: '0.10',
      tax_total: '0.02',
      reverse_charge_tax_total: '0.00',
      total: '0.12',
      groups: [['S', '19', '0.10', '0.02']],
    },
  ],
  [
    'a line discount',
    EUR({ lines: [{ quantity: 10, unit_price: 12.5, discount_amount: 5, tax_percent: 19 }] }),
    {
      subtotal: '125.00',
      discount_total: '5.00',
      net_total: '120.00',
      tax_total: '22.80',
      reverse_charge_tax_total: '0.00',
      total: '142.80',
      groups: [['S', '19', '120.00', '22.80']],
    },
  ],
  [
    'a document discount on a single-rate document',
    EUR({
      lines: [
        { quantity: 1, unit_price: 100, tax_percent: 19 },
        { quantity: 1, unit_price: 50, tax_percent: 19 },
      ],
      document_discounts: [{ amount: 15 }],
    }),
    {
      subtotal: '150.00',
      discount_total: '15.00',
      net_total: '135.00',
      tax_total: '25.65',
      reverse_charge_tax_total: '0.00',
      total: '160.65',
      groups: [['S', '19', '135.00', '25.65']],
    },
  ],
  [
    'line and document discounts on two rates (the document discount on the 7 % group)',
    EUR({
      lines: [
        { quantity: 1, unit_price: 110, discount_amount: 10, tax_percent: 19 },
        { quantity: 4, unit_price: 10, tax_percent: 7 },
      ],
      document_discounts: [{ amount: 4, tax_percent: 7, reason: 'loyalty' }],
    }),
    {
      subtotal: '150.00',
      discount_total: '14.00',
      net_total: '136.00',
      tax_total: '21.52',
      reverse_charge_tax_total: '0.00',
      total: '157.52',
      groups: [
        ['S', '7', '36.00', '2.52'],
        ['S', '19', '100.00', '19.00'],
      ],
    },
  ],
  [
    'reverse charge: AE at 0 %, the buyer’s VAT reported apart',
    EUR({ tax_treatment: 'reverse_charge', lines: [{ quantity: 10, unit_price: 80, tax_percent: 19 }] }),
    {
      subtotal: '800.00',
      discount_total: '0.00',
      net_total: '800.00',
      tax_total: '0.00',
      reverse_charge_tax_total: '152.00',
      total: '800.00',
      groups: [['AE', '0', '800.00', '0.00']],
    },
  ],
  [
    'reverse charge over two rates: one AE group, the notional VAT per rate',
    EUR({
      tax_treatment: 'reverse_charge',
      lines: [
        { quantity: 1, unit_price: 100, tax_percent: 19 },
        { quantity: 1, unit_price: 100, tax_percent: 7 },
      ],
    }),
    {
      subtotal: '200.00',
      discount_total: '0.00',
      net_total: '200.00',
      tax_total: '0.00',
      reverse_charge_tax_total: '26.00',
      total: '200.00',
      groups: [['AE', '0', '200.00', '0.00']],
    },
  ],
  [
    'zero-rated',
    EUR({ tax_treatment: 'zero_rated', lines: [{ quantity: 5, unit_price: 20, tax_percent: 0 }] }),
    {
      subtotal: '100.00',
      discount_total: '0.00',
      net_total: '100.00',
      tax_total: '0.00',
      reverse_charge_tax_total: '0.00',
      total: '100.00',
      groups: [['Z', '0', '100.00', '0.00']],
    },
  ],
  [
    'exempt ignores the line rate',
    EUR({ tax_treatment: 'exempt', lines: [{ quantity: 1, unit_price: 70, tax_percent: 19 }] }),
    {
      subtotal: '70.00',
      discount_total: '0.00',
      net_total: '70.00',
      tax_total: '0.00',
      reverse_charge_tax_total: '0.00',
      total: '70.00',
      groups: [['E', '0', '70.00', '0.00']],
    },
  ],
  [
    'intra-community supply (K)',
    EUR({
      tax_treatment: 'intra_community_supply',
      lines: [{ quantity: 2, unit_price: 45.5, tax_percent: 19 }],
    }),
    {
      subtotal: '91.00',
      discount_total: '0.00',
      net_total: '91.00',
      tax_total: '0.00',
      reverse_charge_tax_total: '0.00',
      total: '91.00',
      groups: [['K', '0', '91.00', '0.00']],
    },
  ],
  [
    'export outside the EU (G)',
    EUR({ tax_treatment: 'export', lines: [{ quantity: 1, unit_price: 999.99, tax_percent: 19 }] }),
    {
      subtotal: '999.99',
      discount_total: '0.00',
      net_total: '999.99',
      tax_total: '0.00',
      reverse_charge_tax_total: '0.00',
      total: '999.99',
      groups: [['G', '0', '999.99', '0.00']],
    },
  ],
  [
    'not subject to VAT (O): every rate becomes one O group without VAT, discounts included',
    EUR({
      tax_treatment: 'not_subject_to_vat',
      lines: [
        { quantity: 2, unit_price: 500, tax_percent: 19 },
        { quantity: 1, unit_price: 80, tax_percent: 7 },
      ],
      document_discounts: [{ amount: 30, tax_percent: 19 }],
    }),
    {
      subtotal: '1080.00',
      discount_total: '30.00',
      net_total: '1050.00',
      tax_total: '0.00',
      reverse_charge_tax_total: '0.00',
      total: '1050.00',
      groups: [['O', '0', '1050.00', '0.00']],
    },
  ],
  [
    'VAT of exactly half a cent rounds half-up (59.50 × 19 % = 11.305 → 11.31)',
    EUR({ lines: [{ quantity: 1, unit_price: 59.5, tax_percent: 19 }] }),
    {
      subtotal: '59.50',
      discount_total: '0.00',
      net_total: '59.50',
      tax_total: '11.31',
      reverse_charge_tax_total: '0.00',
      total: '70.81',
      groups: [['S', '19', '59.50', '11.31']],
    },
  ],
  [
    'JPY has no minor units (7 × 142.857 = 999.999 → 1000, VAT 100)',
    {
      currency: 'JPY',
      tax_treatment: 'domestic',
      lines: [{ quantity: 7, unit_price: 142.857, tax_percent: 10 }],
    },
    {
      subtotal: '1000',
      discount_total: '0',
      net_total: '1000',
      tax_total: '100',
      reverse_charge_tax_total: '0',
      total: '1100',
      groups: [['S', '10', '1000', '100']],
    },
  ],
  [
    'JPY VAT rounds half-up to whole yen (999 × 10 % = 99.9 → 100)',
    {
      currency: 'JPY',
      tax_treatment: 'domestic',
      lines: [{ quantity: 3, unit_price: 333, tax_percent: 10 }],
    },
    {
      subtotal: '999',
      discount_total: '0',
      net_total: '999',
      tax_total: '100',
      reverse_charge_tax_total: '0',
      total: '1099',
      groups: [['S', '10', '999', '100']],
    },
  ],
  [
    'BHD has three decimals (1.2345 → 1.235; VAT 0.1235 → 0.124)',
    {
      currency: 'BHD',
      tax_treatment: 'domestic',
      lines: [{ quantity: 1, unit_price: 1.2345, tax_percent: 10 }],
    },
    {
      subtotal: '1.235',
      discount_total: '0.000',
      net_total: '1.235',
      tax_total: '0.124',
      reverse_charge_tax_total: '0.000',
      total: '1.359',
      groups: [['S', '10', '1.235', '0.124']],
    },
  ],
  [
    'fractional quantity (1.5 × 33.33 = 49.995 → 50.00)',
    EUR({ lines: [{ quantity: 1.5, unit_price: 33.33, tax_percent: 19 }] }),
    {
      subtotal: '50.00',
      discount_total: '0.00',
      net_total: '50.00',
      tax_total: '9.50',
      reverse_charge_tax_total: '0.00',
      total: '59.50',
      groups: [['S', '19', '50.00', '9.50']],
    },
  ],
  [
    'VAT half-up at the cent (0.50 × 1 % = 0.005 → 0.01)',
    EUR({ lines: [{ quantity: 1, unit_price: 0.5, tax_percent: 1 }] }),
    {
      subtotal: '0.50',
      discount_total: '0.00',
      net_total: '0.50',
      tax_total: '0.01',
      reverse_charge_tax_total: '0.00',
      total: '0.51',
      groups: [['S', '1', '0.50', '0.01']],
    },
  ],
  [
    'a 0 % line next to a 19 % line: Z and S groups',
    EUR({
      lines: [
        { quantity: 1, unit_price: 10, tax_percent: 0 },
        { quantity: 1, unit_price: 10, tax_percent: 19 },
      ],
    }),
    {
      subtotal: '20.00',
      discount_total: '0.00',
      net_total: '20.00',
      tax_total: '1.90',
      reverse_charge_tax_total: '0.00',
      total: '21.90',
      groups: [
        ['S', '19', '10.00', '1.90'],
        ['Z', '0', '10.00', '0.00'],
      ],
    },
  ],
];

describe('computeTotals', () => {
  it.each(cases)('%s', (_name, input, expected) => {
    const totals = computeTotals(input);
    const { groups, ...sums } = expected;
    expect({
      subtotal: totals.subtotal,
      discount_total: totals.discount_total,
      net_total: totals.net_total,
      tax_total: totals.tax_total,
      reverse_charge_tax_total: totals.reverse_charge_tax_total,
      total: totals.total,
    }).toEqual(sums);
    expect(totals.groups.map((g) => [g.category, g.percent, g.taxable_amount, g.tax_amount])).toEqual(groups);
  });

  it('keeps per-line figures: gross, discount, net and an informative line VAT', () => {
    const totals = computeTotals(
      EUR({ lines: [{ quantity: 3, unit_price: 19.99, discount_amount: 2.5, tax_percent: 7 }] }),
    );
    expect(totals.lines).toEqual([
      {
        line_gross: '59.97',
        discount_amount: '2.50',
        line_total: '57.47',
        tax_category: 'S',
        tax_percent: '7',
        given_tax_percent: '7',
        tax_amount: '4.02',
      },
    ]);
  });

  const refusals: [name: string, input: TotalsInput, pointer: string][] = [
    [
      'a discount above the line amount',
      EUR({ lines: [{ quantity: 1, unit_price: 10, discount_amount: 10.01 }] }),
      '/params/lines/0/discount_amount',
    ],
    [
      'a discount with more digits than EUR has',
      EUR({ lines: [{ quantity: 1, unit_price: 10, discount_amount: 0.005 }] }),
      '/params/lines/0/discount_amount',
    ],
    [
      'a yen discount with decimals',
      {
        currency: 'JPY',
        tax_treatment: 'domestic',
        lines: [{ quantity: 1, unit_price: 100, discount_amount: 0.5 }],
      },
      '/params/lines/0/discount_amount',
    ],
    [
      'a document discount without a rate on a two-rate document',
      EUR({
        lines: [
          { quantity: 1, unit_price: 10, tax_percent: 7 },
          { quantity: 1, unit_price: 10, tax_percent: 19 },
        ],
        document_discounts: [{ amount: 1 }],
      }),
      '/params/document_discounts/0/tax_percent',
    ],
    [
      'a document discount on a rate no line has',
      EUR({
        lines: [{ quantity: 1, unit_price: 10, tax_percent: 19 }],
        document_discounts: [{ amount: 1, tax_percent: 7 }],
      }),
      '/params/document_discounts/0/tax_percent',
    ],
    [
      'a document discount above its group',
      EUR({
        lines: [{ quantity: 1, unit_price: 10, tax_percent: 19 }],
        document_discounts: [{ amount: 10.01 }],
      }),
      '/params/document_discounts/0/amount',
    ],
  ];
  it.each(refusals)('refuses %s with validation_failed at its pointer', (_name, input, pointer) => {
    let error: unknown;
    try {
      computeTotals(input);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CapabilityError);
    expect((error as CapabilityError).code).toBe('validation_failed');
    expect((error as CapabilityError).violations[0]?.schema_pointer).toBe(pointer);
  });
});

describe('deriveTaxTreatment', () => {
  it.each([
    ['DE', 'DE', 'DE123456789', 'domestic'],
    ['DE', 'AT', 'ATU12345678', 'reverse_charge'],
    ['DE', 'AT', null, 'domestic'],
    ['DE', 'US', null, 'export'],
    ['DE', 'CH', 'CHE-123.456.789', 'export'],
    ['DE', null, null, 'domestic'],
    ['DE', 'EL', 'EL123456789', 'reverse_charge'],
  ] as const)('issuer %s, buyer %s with VAT id %s: %s', (issuer, buyer, vat, expected) => {
    expect(deriveTaxTreatment(issuer, buyer, vat)).toBe(expected);
  });
});
