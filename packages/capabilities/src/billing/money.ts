import Decimal from 'decimal.js';
import { CapabilityError } from '../define.js';

/**
 * Exact money for billing. Amounts arrive as JSON numbers the contracts already limited to 6 decimals,
 * so `String(value)` is their exact decimal; from there everything is decimal.js (never a float), and
 * amounts leave as JSON numbers again only when written into a result.
 */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Money = Decimal;

// ISO 4217 minor units that are not 2. Intl's data disagrees with ISO for a few (IDR, HUF), so the list
// is ours.
const MINOR_UNITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** Digits after the decimal point of `currency` (2 unless ISO 4217 says otherwise). */
export function minorUnits(currency: string): number {
  return MINOR_UNITS[currency.toUpperCase()] ?? 2;
}

/** A JSON number or decimal string as an exact decimal. */
export function money(value: number | string | Decimal): Decimal {
  return new Money(typeof value === 'number' ? String(value) : value);
}

/** Rounds half-up (commercial rounding, as EN 16931 examples do) to the currency's minor units. */
export function roundTo(value: Decimal, currency: string): Decimal {
  return value.toDecimalPlaces(minorUnits(currency), Decimal.ROUND_HALF_UP);
}

/** Refuses an amount with more digits than the currency has (0.005 EUR, 1.5 JPY): 400 at `pointer`. */
export function requireMinorUnits(value: number, currency: string, pointer: string): Decimal {
  const amount = money(value);
  const digits = minorUnits(currency);
  if (amount.decimalPlaces() > digits) {
    const message = `must have at most ${digits} digits after the decimal point in ${currency}`;
    throw new CapabilityError('validation_failed', `${pointer} ${message}`, [
      { schema_pointer: pointer, keyword: 'multipleOf', message },
    ]);
  }
  return amount;
}

/** The JSON number of an exact decimal (all amounts are within 10^12 with at most 6 decimals). */
export function toNumber(value: Decimal | string): number {
  return Number(typeof value === 'string' ? value : value.toFixed());
}

/** A stored numeric (string on both engines) rendered with the currency's digits, e.g. `"12.30"`. */
export function formatAmount(value: Decimal | string, currency: string): string {
  return money(value).toFixed(minorUnits(currency));
}
