import { MAX_MONEY_AMOUNT } from '@agw/contracts';
import type Decimal from 'decimal.js';
import { CapabilityError } from '../define.js';
import { minorUnits, money, roundTo } from './money.js';

/**
 * EN 16931 document totals, pure (no I/O), so one table of hand-computed cases pins them down:
 *
 * - line gross = round(quantity × unit price); line net (BT-131) = line gross − line discount
 *   (the discount is an amount in minor units, so this equals round(quantity × price − discount));
 * - VAT breakdown (BG-23) per (category, rate): taxable amount (BT-116) = Σ line nets − document
 *   discounts of that group; VAT (BT-117) = round(taxable × rate / 100), once per group;
 * - subtotal = Σ line gross; discount_total = Σ line discounts + Σ document discounts;
 *   net_total (BT-109) = subtotal − discount_total; tax_total (BT-110) = Σ group VAT;
 *   total (BT-112) = net_total + tax_total.
 *
 * Tax treatment picks the category: domestic (S, or Z for a 0 % line), zero_rated (Z), exempt (E),
 * reverse_charge (AE), intra_community_supply (K), export (G), not_subject_to_vat (O: outside the scope
 * of VAT, e.g. a service whose place of supply is abroad; every line is O). Outside `domestic` the VAT is 0; under
 * reverse charge the VAT the buyer self-assesses (lines' rates applied per rate group) is reported as
 * `reverse_charge_tax_total` and not added to the total.
 */

export const TAX_TREATMENTS = [
  'domestic',
  'zero_rated',
  'exempt',
  'reverse_charge',
  'intra_community_supply',
  'export',
  'not_subject_to_vat',
] as const;
export type TaxTreatment = (typeof TAX_TREATMENTS)[number];

export const TAX_TREATMENT_LABELS: Readonly<Record<TaxTreatment, string>> = {
  domestic: 'Domestic VAT',
  zero_rated: 'Zero-rated supply',
  exempt: 'VAT exempt',
  reverse_charge: 'Reverse charge: VAT is payable by the recipient',
  intra_community_supply: 'VAT-exempt intra-community supply',
  export: 'VAT-exempt export outside the EU',
  not_subject_to_vat: 'Not subject to VAT (outside the scope of VAT)',
};

/** EN 16931 VAT category codes (UNCL5305). */
export type TaxCategory = 'S' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O';

export interface TotalsLine {
  readonly quantity: number | string;
  readonly unit_price: number | string;
  readonly discount_amount?: number | string | undefined;
  readonly tax_percent?: number | string | undefined;
}

export interface DocumentDiscount {
  readonly amount: number | string;
  /** The VAT rate group it reduces; may be left out when all lines share one rate. */
  readonly tax_percent?: number | string | undefined;
  readonly reason?: string | null | undefined;
}

export interface TotalsInput {
  readonly currency: string;
  readonly tax_treatment: TaxTreatment;
  readonly lines: readonly TotalsLine[];
  readonly document_discounts?: readonly DocumentDiscount[];
}

export interface LineTotals {
  readonly line_gross: string;
  readonly discount_amount: string;
  /** Line net amount (BT-131). */
  readonly line_total: string;
  readonly tax_category: TaxCategory;
  /** The rate applied (0 outside domestic treatment). */
  readonly tax_percent: string;
  /** The line's rate as given (the notional rate under reverse charge). */
  readonly given_tax_percent: string;
  /** Informative per-line VAT; the document's VAT is computed per group, not summed from these. */
  readonly tax_amount: string;
}

export interface TaxGroup {
  readonly category: TaxCategory;
  readonly percent: string;
  readonly taxable_amount: string;
  readonly tax_amount: string;
  readonly exemption_reason: string | null;
}

export interface Totals {
  readonly currency: string;
  readonly lines: readonly LineTotals[];
  readonly groups: readonly TaxGroup[];
  readonly document_discounts: readonly { amount: string; tax_percent: string; reason: string | null }[];
  readonly subtotal: string;
  readonly discount_total: string;
  readonly net_total: string;
  readonly tax_total: string;
  readonly reverse_charge_tax_total: string;
  readonly total: string;
}

const EXEMPTION_REASONS: Readonly<Record<TaxCategory, string | null>> = {
  S: null,
  Z: null,
  E: 'Exempt from VAT',
  AE: 'Reverse charge',
  K: 'Intra-community supply',
  G: 'Export outside the EU',
  O: 'Not subject to VAT',
};

function categoryOf(treatment: TaxTreatment, percent: Decimal): TaxCategory {
  switch (treatment) {
    case 'domestic':
      return percent.isZero() ? 'Z' : 'S';
    case 'zero_rated':
      return 'Z';
    case 'exempt':
      return 'E';
    case 'reverse_charge':
      return 'AE';
    case 'intra_community_supply':
      return 'K';
    case 'export':
      return 'G';
    case 'not_subject_to_vat':
      return 'O';
  }
}

function refuse(pointer: string, message: string): never {
  throw new CapabilityError('validation_failed', `${pointer} ${message}`, [
    { schema_pointer: pointer, keyword: 'billing', message },
  ]);
}

/**
 * Refuses an amount past the contracts' money bound (10^12): quantity × unit price is within each
 * one's own bound yet may reach 10^21, which the numeric(20,6) columns (at most 10^14) cannot hold. A
 * line or total within 10^12 can be stored, summed with payments and credits, and paid in one payment.
 */
function requireStorable(amount: Decimal, pointer: string, what: string): void {
  if (amount.greaterThan(MAX_MONEY_AMOUNT)) {
    refuse(
      pointer,
      `${what} ${amount.toFixed()} exceeds the largest amount a document holds, ${MAX_MONEY_AMOUNT}`,
    );
  }
}

/** Refuses an amount with more digits than the currency has. */
function amountIn(value: number | string | undefined, currency: string, pointer: string): Decimal {
  const amount = money(value ?? 0);
  if (amount.decimalPlaces() > minorUnits(currency)) {
    refuse(
      pointer,
      `must have at most ${minorUnits(currency)} digits after the decimal point in ${currency}`,
    );
  }
  return amount;
}

/**
 * Computes the totals; refuses (validation_failed, with the param's pointer under `/params`) a
 * discount larger than what it discounts or with more digits than the currency has.
 */
export function computeTotals(input: TotalsInput): Totals {
  const { currency, tax_treatment: treatment } = input;
  const digits = minorUnits(currency);
  const fixed = (value: Decimal) => value.toFixed(digits);
  const lines = input.lines.map((line, index) => {
    const gross = roundTo(money(line.quantity).times(money(line.unit_price)), currency);
    requireStorable(gross, `/params/lines/${index}`, 'quantity × unit_price =');
    const discount = amountIn(line.discount_amount, currency, `/params/lines/${index}/discount_amount`);
    if (discount.greaterThan(gross)) {
      refuse(`/params/lines/${index}/discount_amount`, `must not exceed the line amount ${fixed(gross)}`);
    }
    const given = money(line.tax_percent ?? 0);
    const category = categoryOf(treatment, given);
    const applied = treatment === 'domestic' ? given : money(0);
    const net = gross.minus(discount);
    return { gross, discount, net, given, category, applied };
  });

  const rates = [...new Set(lines.map((line) => line.given.toFixed()))];
  const discounts = (input.document_discounts ?? []).map((discount, index) => {
    const pointer = `/params/document_discounts/${index}`;
    const amount = amountIn(discount.amount, currency, `${pointer}/amount`);
    let percent: Decimal;
    if (discount.tax_percent !== undefined) percent = money(discount.tax_percent);
    else if (rates.length === 1) percent = money(rates[0] as string);
    else refuse(`${pointer}/tax_percent`, 'is required when the lines have more than one tax rate');
    if (!rates.includes(percent.toFixed())) {
      refuse(`${pointer}/tax_percent`, `must be the rate of at least one line (${rates.join(', ')})`);
    }
    return { amount, percent, reason: discount.reason ?? null };
  });

  // Groups by the rate as given: under reverse charge the notional VAT is computed per given rate too.
  const byGiven = new Map<string, { category: TaxCategory; applied: Decimal; taxable: Decimal }>();
  for (const line of lines) {
    const key = line.given.toFixed();
    const group = byGiven.get(key) ?? { category: line.category, applied: line.applied, taxable: money(0) };
    group.taxable = group.taxable.plus(line.net);
    byGiven.set(key, group);
  }
  for (const [index, discount] of discounts.entries()) {
    const group = byGiven.get(discount.percent.toFixed());
    if (group === undefined) continue;
    group.taxable = group.taxable.minus(discount.amount);
    if (group.taxable.isNegative()) {
      refuse(
        `/params/document_discounts/${index}/amount`,
        `must not exceed the net amount of the ${discount.percent.toFixed()} % lines`,
      );
    }
  }

  // The breakdown proper, per (category, applied rate): EN 16931 has one AE/K/G/E group at 0 %.
  const groups = new Map<
    string,
    { category: TaxCategory; percent: Decimal; taxable: Decimal; tax: Decimal }
  >();
  let reverseCharge = money(0);
  for (const [given, group] of byGiven) {
    const key = `${group.category}:${group.applied.toFixed()}`;
    const target = groups.get(key) ?? {
      category: group.category,
      percent: group.applied,
      taxable: money(0),
      tax: money(0),
    };
    target.taxable = target.taxable.plus(group.taxable);
    groups.set(key, target);
    if (group.category === 'AE') {
      reverseCharge = reverseCharge.plus(roundTo(group.taxable.times(money(given)).dividedBy(100), currency));
    }
  }
  for (const group of groups.values()) {
    group.tax = roundTo(group.taxable.times(group.percent).dividedBy(100), currency);
  }

  const subtotal = lines.reduce((sum, line) => sum.plus(line.gross), money(0));
  const lineDiscounts = lines.reduce((sum, line) => sum.plus(line.discount), money(0));
  const documentDiscounts = discounts.reduce((sum, discount) => sum.plus(discount.amount), money(0));
  const discountTotal = lineDiscounts.plus(documentDiscounts);
  const net = subtotal.minus(discountTotal);
  const tax = [...groups.values()].reduce((sum, group) => sum.plus(group.tax), money(0));
  requireStorable(subtotal, '/params/lines', 'the sum of the lines');
  requireStorable(net.plus(tax), '/params/lines', 'the total with VAT');
  return {
    currency,
    lines: lines.map((line) => ({
      line_gross: fixed(line.gross),
      discount_amount: fixed(line.discount),
      line_total: fixed(line.net),
      tax_category: line.category,
      tax_percent: line.applied.toFixed(),
      given_tax_percent: line.given.toFixed(),
      tax_amount: fixed(roundTo(line.net.times(line.applied).dividedBy(100), currency)),
    })),
    groups: [...groups.values()]
      .sort((a, b) => a.category.localeCompare(b.category) || a.percent.comparedTo(b.percent))
      .map((group) => ({
        category: group.category,
        percent: group.percent.toFixed(),
        taxable_amount: fixed(group.taxable),
        tax_amount: fixed(group.tax),
        exemption_reason: EXEMPTION_REASONS[group.category],
      })),
    document_discounts: discounts.map((discount) => ({
      amount: fixed(discount.amount),
      tax_percent: discount.percent.toFixed(),
      reason: discount.reason,
    })),
    subtotal: fixed(subtotal),
    discount_total: fixed(discountTotal),
    net_total: fixed(net),
    tax_total: fixed(tax),
    reverse_charge_tax_total: fixed(reverseCharge),
    total: fixed(net.plus(tax)),
  };
}

const EU_MEMBER_STATES = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
]);

/** True for an EU member state (ISO 3166-1 alpha-2; Greece as GR, its VAT prefix EL accepted too). */
export function isEuMemberState(country: string | null | undefined): boolean {
  const code = (country ?? '').toUpperCase();
  return EU_MEMBER_STATES.has(code === 'EL' ? 'GR' : code);
}

/**
 * The treatment when the caller names none: a buyer in another EU member state with a VAT id is
 * reverse charge (B2B services, the common case; goods are `intra_community_supply`, named explicitly);
 * a buyer outside the EU is an export; anything else (same country, no country, EU consumer) domestic.
 */
export function deriveTaxTreatment(
  issuerCountry: string | null | undefined,
  buyerCountry: string | null | undefined,
  buyerVatId: string | null | undefined,
): TaxTreatment {
  const issuer = (issuerCountry ?? '').toUpperCase();
  const buyer = (buyerCountry ?? '').toUpperCase();
  if (buyer === '' || issuer === '' || buyer === issuer) return 'domestic';
  if (!isEuMemberState(buyer)) return isEuMemberState(issuer) ? 'export' : 'domestic';
  if (isEuMemberState(issuer) && buyerVatId) return 'reverse_charge';
  return 'domestic';
}
