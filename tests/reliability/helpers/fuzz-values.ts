import fc from 'fast-check';

// The hostile values the fuzzer draws from besides what the schemas describe: strings, dates and numbers
// that break naive code, wrong types, and deep nesting.

/** Strings that break naive code: NUL, RTL override, astral, lone surrogates, CR/LF, injection. */
export const NASTY_STRINGS: readonly string[] = [
  '\u0000',
  'a\u0000b',
  '\u202eevil\u202c',
  '\u200f\u05e9\u05dc\u05d5\u05dd',
  '😀🏳️‍🌈',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '\u2028\u2029',
  'e\u0301',
  '\r\n{"level":50,"msg":"injected"}',
  "'; drop table apps; --",
  '../../../etc/passwd',
  '%00%0d%0a',
  '$'.concat('{jndi:ldap://x}'),
  '<script>alert(1)</script>',
  'etc\u2215passwd',
  'a\uff0fb\uff3cc',
  '1\u20442',
  '\u2066isolate\u2069',
  // Control characters (issue 26, findings 5 and 9): ESC, C1 controls, U+0001, a lone CR or LF.
  'Evil\u001b[31m',
  'a\u0085b\u009bc',
  'x\u0001y',
  'Name\r\nBcc: victim@example.org',
  'line\nbreak',
  ' ',
  '',
];

/** Dates at the edges of the calendar: the first and last day ISO 8601 writes with four digits. */
export const EDGE_DATES: readonly string[] = ['0001-01-01', '9999-12-31', '1970-01-01', '2038-01-19'];
export const EDGE_TIMESTAMPS: readonly string[] = [
  '0001-01-01T00:00:00Z',
  '9999-12-31T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00Z',
  '2038-01-19T03:14:08Z',
  '0001-01-01T00:00:00+14:00',
];

/** Numbers at the edges of what JSON, JavaScript and PostgreSQL hold. */
export const NASTY_NUMBERS: readonly number[] = [
  0,
  -0,
  -1,
  0.1 + 0.2,
  1e-320,
  1e21,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  1.5,
];

/**
 * Extremes every numeric field gets, among its valid values too (issue 12, finding 4): a bound-less
 * `minimum: 0` accepted 1e308, which overflowed a handler's BigInt micro-credits into a 500. The
 * largest and smallest doubles, -0, the first integer a double cannot hold (2^53+1 reads as 2^53) and a
 * decimal longer than a double keeps.
 */
export const EXTREME_NUMBERS: readonly number[] = [
  1e308,
  -1e308,
  5e-324,
  -5e-324,
  -0,
  2 ** 53 + 1,
  -(2 ** 53) - 1,
  Number('0.1234567890123456789'),
  Number('123456789.123456789'),
  1e12,
  1e12 + 0.5,
];

/** A JSON leaf: null, a boolean, a number, a string, a nasty string. */
export const LEAF_JSON = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(...NASTY_STRINGS),
);

/** Any JSON value of bounded size. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 });

/** A value of the wrong JSON type for most schemas. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, '', 'x', [], {}, [null], { a: 1 }),
  LEAF_JSON,
);

/**
 * Objects or arrays nested `depth` levels deep (deep nesting): just past the gateway's bound of 32, up to
 * 3000, and 10 000 (issue 26, finding 5: that many levels in a free-form member ran the audit hash out of
 * stack, a 500).
 */
export const deeplyNested: fc.Arbitrary<unknown> = fc
  .tuple(fc.oneof(fc.integer({ min: 20, max: 3000 }), fc.constantFrom(33, 5000, 10_000)), fc.boolean())
  .map(([depth, asArray]) => nested(depth, asArray));

/** `depth` levels of `{"d": …}` (or `[…]`) around a string. */
export function nested(depth: number, asArray = false): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i += 1) value = asArray ? [value] : { d: value };
  // fast-check prints values recursively; this keeps its report of a failing case from overflowing.
  return Object.assign(value as object, {
    [fc.toStringMethod]: () => `<${depth} levels of ${asArray ? '[]' : '{}'}>`,
  });
}
