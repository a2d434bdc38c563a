import { describe, expect, it } from 'vitest';
import { CapabilityError } from '../src/define.js';
import { numberToMicro } from '../src/money.js';

const pointer = '/params/estimated_cost_credits';

describe('numberToMicro', () => {
  it('converts credits to micro-credits, rounding to the nearest micro-credit', () => {
    expect(numberToMicro(0.3, pointer)).toBe(300_000n);
    expect(numberToMicro(-0, pointer)).toBe(0n);
    expect(numberToMicro(1e12, pointer)).toBe(1_000_000_000_000_000_000n);
    expect(numberToMicro(Number('0.1234567890123456789'), pointer)).toBe(123_457n);
  });

  it('refuses what BigInt micro-credits cannot hold with a validation error, not a RangeError', () => {
    for (const value of [
      1e308,
      -1e308,
      Number.MAX_VALUE,
      1e12 + 1,
      -1,
      Number.POSITIVE_INFINITY,
      Number.NaN,
    ]) {
      let thrown: unknown;
      try {
        numberToMicro(value, pointer);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, String(value)).toBeInstanceOf(CapabilityError);
      expect(thrown).toMatchObject({ code: 'validation_failed', violations: [{ schema_pointer: pointer }] });
    }
  });
});
