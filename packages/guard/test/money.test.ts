// Pins exact credit arithmetic (integer micro-credits, 6 decimals). Does not cover currencies.
import { describe, expect, it } from 'vitest';
import {
  addCredits,
  compareCredits,
  formatCredits,
  isCredits,
  parseCredits,
  subtractCredits,
} from '../src/index.js';

describe('credits', () => {
  it('adds 0.1 and 0.2 to exactly 0.3', () => {
    expect(addCredits('0.1', '0.2')).toBe('0.3');
    expect(compareCredits(addCredits('0.1', '0.2'), '0.3')).toBe(0);
  });

  it('keeps a million micro-charges exact', () => {
    const total = Array.from({ length: 1000 }, () => '0.001').reduce(
      (sum, amount) => addCredits(sum, amount),
      '0',
    );
    expect(total).toBe('1');
  });

  it('parses and formats without losing digits', () => {
    expect(parseCredits('12.345678')).toBe(12_345_678n);
    expect(formatCredits(12_345_678n)).toBe('12.345678');
    expect(formatCredits(-500_000n)).toBe('-0.5');
    expect(formatCredits(0n)).toBe('0');
    expect(subtractCredits('1', '1.000001')).toBe('-0.000001');
    expect(addCredits('99999999999999999999.999999', '0.000001')).toBe('100000000000000000000');
  });

  it('refuses floats in disguise and more than 6 decimals', () => {
    for (const bad of ['0.1234567', '1e3', '', '.5', '1.', ' 1', 'NaN', '0x10']) {
      expect(isCredits(bad)).toBe(false);
      expect(() => parseCredits(bad)).toThrow(RangeError);
    }
  });
});
