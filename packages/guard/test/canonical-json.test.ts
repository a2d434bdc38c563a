// Pins the canonical JSON used for params hashes. Covers plain JSON values only (no RFC 8785 number
// edge cases beyond what ECMAScript serialization already guarantees).
import { describe, expect, it } from 'vitest';
import { canonicalJson, hashParams } from '../src/index.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('gives equal params the same hash whatever the key order', () => {
    expect(hashParams({ amount: 10, currency: 'EUR' })).toBe(hashParams({ currency: 'EUR', amount: 10 }));
    expect(hashParams({ amount: 10 })).not.toBe(hashParams({ amount: 10.5 }));
    expect(hashParams({})).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sorts by UTF-16 code units and escapes like JSON', () => {
    expect(canonicalJson({ '\u00e9': 1, z: 2, A: 3 })).toBe('{"A":3,"z":2,"é":1}');
    expect(canonicalJson('line\nbreak "quoted"')).toBe('"line\\nbreak \\"quoted\\""');
  });

  it('refuses values JSON cannot represent', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson({ at: new Date(0) })).toThrow(TypeError);
    expect(() => canonicalJson(10n)).toThrow(TypeError);
    expect(canonicalJson({ skipped: undefined, kept: 1 })).toBe('{"kept":1}');
  });
});
