import type { Credits } from './define.js';

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

/** A non-negative JSON number of credits as micro-credits (rounded to the nearest micro-credit). */
export function numberToMicro(value: number): bigint {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`Not a credit amount: ${value}`);
  return BigInt(Math.round(value * 1_000_000));
}
