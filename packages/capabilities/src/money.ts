import { MAX_CREDITS } from '@agw/contracts';
import { CapabilityError, type Credits } from './define.js';

// Credits as BigInt micro-credits (6 decimals), the same scale as @agw/guard's money helpers, so a
// balance compare never suffers float rounding.
const SCALE = 1_000_000n;
const DECIMAL = /^(-)?(\d+)(?:\.(\d{1,6}))?$/;

/** Parses a decimal credit string into micro-credits; throws on anything else. */
export function toMicro(credits: Credits): bigint {
  const match = DECIMAL.exec(credits);
  if (!match) throw new RangeError(`Not a credit amount: ${credits}`);
  const micro = BigInt(match[2] as string) * SCALE + BigInt((match[3] ?? '').padEnd(6, '0'));
  return match[1] ? -micro : micro;
}

/**
 * A non-negative JSON number of credits as micro-credits (rounded to the nearest micro-credit).
 * The input schema bounds the number (`CreditAmount`: at most MAX_CREDITS); this check stands behind
 * it so a number outside what BigInt micro-credits can hold is a 400 at `pointer`, never a RangeError
 * (a 500): `BigInt(Math.round(1e308 * 1e6))` throws on Infinity.
 */
export function numberToMicro(value: number, pointer: string): bigint {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_CREDITS) {
    const message = `must be a number of credits from 0 to ${MAX_CREDITS}`;
    throw new CapabilityError('validation_failed', `${pointer} ${message}`, [
      { schema_pointer: pointer, keyword: 'maximum', message },
    ]);
  }
  return BigInt(Math.round(value * 1_000_000));
}
