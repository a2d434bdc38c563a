import { Type } from '@sinclair/typebox';

/**
 * Bounds of numeric inputs: every number a caller sends has a maximum its handler can compute with.
 * Without one, `1e308` passes `minimum: 0` and overflows the handler's exact arithmetic (credits are
 * BigInt micro-credits: `1e308 × 10^6` is Infinity, which BigInt refuses). Amounts are JSON numbers
 * on the wire, so their precision rule is a format (`decimal-6`, registered by `createValidator()`)
 * rather than `multipleOf: 0.000001`, which float division makes refuse values such as 0.3 in
 * validators without ajv's `multipleOfPrecision`.
 */

/** Digits after the decimal point an amount, quantity or percentage may carry (micro units). */
export const MAX_DECIMAL_PLACES = 6;

/** Format of numbers with at most {@link MAX_DECIMAL_PLACES} fraction digits. */
export const DECIMAL_6_FORMAT = 'decimal-6';

/** The violation message of the `decimal-6` format. */
export const DECIMAL_6_MESSAGE = `must have at most ${MAX_DECIMAL_PLACES} digits after the decimal point`;

/**
 * Largest credit amount: 10^12 credits are 10^18 micro-credits, inside a signed 64-bit integer and
 * the wallets' numeric(20,6).
 */
export const MAX_CREDITS = 1_000_000_000_000;

/** Largest money amount (price, payment, discount), in the document's currency; numeric(20,6) holds it. */
export const MAX_MONEY_AMOUNT = 1_000_000_000_000;

/** Largest line quantity; a quantity times a price stays within exact decimal arithmetic. */
export const MAX_QUANTITY = 1_000_000_000;

/** Largest percentage (tax rates). */
export const MAX_PERCENT = 100;

/** Largest paging offset (a PostgreSQL `integer`; JSON Schema calls 1e308 an integer too). */
export const MAX_OFFSET = 2_147_483_647;

/** True when `value` is finite and written with at most 6 fraction digits (its shortest decimal form). */
export function hasAtMostSixDecimals(value: number): boolean {
  return Number.isFinite(value) && Number(value.toFixed(MAX_DECIMAL_PLACES)) === value;
}

const bounded = (maximum: number) => ({ maximum, format: DECIMAL_6_FORMAT });

/** A credit amount as a JSON number: 0..10^12, at most 6 decimals (one micro-credit). */
export const CreditAmount = () => Type.Number({ minimum: 0, ...bounded(MAX_CREDITS) });

/** A money amount: 0..10^12 (or > 0 with `positive`), at most 6 decimals. */
export const MoneyAmount = (options: { positive?: boolean } = {}) =>
  Type.Number({
    ...(options.positive === true ? { exclusiveMinimum: 0 } : { minimum: 0 }),
    ...bounded(MAX_MONEY_AMOUNT),
  });

/** A quantity: 0..10^9, at most 6 decimals. */
export const Quantity = () => Type.Number({ minimum: 0, ...bounded(MAX_QUANTITY) });

/** A percentage: 0..100, at most 6 decimals. */
export const Percent = () => Type.Number({ minimum: 0, ...bounded(MAX_PERCENT) });
