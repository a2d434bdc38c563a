/**
 * Exact credit arithmetic. Credits travel as decimal strings (`"0.1"`) and are computed as integer
 * micro-credits in BigInt, never as floats: 0.1 + 0.2 is exactly 0.3 here.
 */

/** Digits after the decimal point that credits carry. */
export const creditScale = 6;

const microsPerCredit = 10n ** BigInt(creditScale);
const creditPattern = /^(-?)(\d{1,30})(?:\.(\d{1,6}))?$/;

/**
 * Parses a decimal credit string into integer micro-credits.
 * @throws RangeError for anything but a plain decimal with at most 6 fraction digits.
 * @example parseCredits('1.5') === 1_500_000n
 */
export function parseCredits(value: string): bigint {
  const match = typeof value === 'string' ? creditPattern.exec(value) : null;
  if (!match) throw new RangeError(`Not a credit amount: ${JSON.stringify(value)}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const micros = BigInt(whole) * microsPerCredit + BigInt(fraction.padEnd(creditScale, '0'));
  return sign === '-' ? -micros : micros;
}

/**
 * Formats micro-credits as the shortest exact decimal string.
 * @example formatCredits(300_000n) === '0.3'
 */
export function formatCredits(micros: bigint): string {
  const negative = micros < 0n;
  const absolute = negative ? -micros : micros;
  const whole = absolute / microsPerCredit;
  const fraction = (absolute % microsPerCredit).toString().padStart(creditScale, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** True when `value` is a valid credit string. */
export function isCredits(value: unknown): value is string {
  return typeof value === 'string' && creditPattern.test(value);
}

/** Exact sum of credit strings. */
export function addCredits(...values: readonly string[]): string {
  return formatCredits(values.reduce((sum, value) => sum + parseCredits(value), 0n));
}

/** Exact difference `a - b`. */
export function subtractCredits(a: string, b: string): string {
  return formatCredits(parseCredits(a) - parseCredits(b));
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareCredits(a: string, b: string): -1 | 0 | 1 {
  const difference = parseCredits(a) - parseCredits(b);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}
