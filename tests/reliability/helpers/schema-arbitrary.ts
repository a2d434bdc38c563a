import fc from 'fast-check';
import {
  anyJson,
  deeplyNested,
  EDGE_DATES,
  EDGE_TIMESTAMPS,
  EXTREME_NUMBERS,
  LEAF_JSON,
  NASTY_NUMBERS,
  NASTY_STRINGS,
  wrongType,
} from './fuzz-values.js';

/**
 * fast-check arbitraries generated from the contracts' JSON Schemas (plain, `$ref`s inlined: pass
 * `toPlainJsonSchema(schema)`): {@link validValue} aims at values the schema accepts, {@link mutatedValue}
 * at values it refuses (one mutation somewhere in an otherwise plausible value). Neither promises the
 * outcome — the fuzzer asks ajv which side a value landed on — so the generators can stay simple.
 *
 * The subset covered is what the contracts use: object (properties, required, additionalProperties),
 * string (min/maxLength, pattern, format email/uri/date/date-time; `display-text` is drawn like any
 * string, with bidi controls and look-alike slashes among the nasty strings), integer, number (minimum,
 * maximum, exclusiveMinimum, format `decimal-6`; {@link EXTREME_NUMBERS} among valid values too), boolean, null, array (items, min/maxItems), const, enum, anyOf/oneOf, and `{}`.
 */
export type JsonSchema = Readonly<Record<string, unknown>>;

const str = (schema: JsonSchema, key: string): string | undefined =>
  typeof schema[key] === 'string' ? (schema[key] as string) : undefined;
const num = (schema: JsonSchema, key: string): number | undefined =>
  typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
const props = (schema: JsonSchema) => (schema.properties ?? {}) as Record<string, JsonSchema>;
const requiredOf = (schema: JsonSchema) => (schema.required ?? []) as string[];
const alternatives = (schema: JsonSchema) => (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;

/** Values the schema most likely accepts. */
export function validValue(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const options = alternatives(schema);
  if (options) return fc.oneof(...options.map((option) => validValue(option, depth + 1)));
  switch (schema.type) {
    case 'object':
      return validObject(schema, depth);
    case 'array': {
      const items = (schema.items ?? {}) as JsonSchema;
      const minLength = num(schema, 'minItems') ?? 0;
      const maxLength = Math.min(num(schema, 'maxItems') ?? minLength + 3, minLength + 3);
      return fc.array(validValue(items, depth + 1), { minLength, maxLength });
    }
    case 'string':
      return validString(schema);
    case 'integer': {
      const min = num(schema, 'minimum') ?? (num(schema, 'exclusiveMinimum') ?? -1_000_001) + 1;
      const max = num(schema, 'maximum') ?? (num(schema, 'exclusiveMaximum') ?? 1_000_001) - 1;
      // fc.integer holds 32-bit bounds only; larger bounds (offsets up to 2^31-1) are drawn as doubles.
      const inRange =
        max - min <= 2 ** 31
          ? fc.integer({ min, max: Math.max(min, max) })
          : fc.double({ min, max, noNaN: true }).map(Math.trunc);
      return fc.oneof(
        { weight: 4, arbitrary: inRange },
        { weight: 1, arbitrary: fc.constantFrom(...EXTREME_NUMBERS) },
      );
    }
    case 'number': {
      const exclusive = num(schema, 'exclusiveMinimum');
      const min = num(schema, 'minimum') ?? (exclusive === undefined ? -1e6 : exclusive + 0.01);
      const max = num(schema, 'maximum') ?? 1e6;
      // Amounts with the contracts' `decimal-6` format are drawn with at most 6 decimals.
      const places = str(schema, 'format') === 'decimal-6' ? 1e6 : undefined;
      const double = fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      return fc.oneof(
        {
          weight: 2,
          arbitrary: fc.integer({ min: Math.ceil(min), max: Math.min(Math.floor(max), 2 ** 31 - 1) }),
        },
        {
          weight: 2,
          arbitrary:
            places === undefined ? double : double.map((value) => Math.round(value * places) / places),
        },
        { weight: 1, arbitrary: fc.constantFrom(...EXTREME_NUMBERS) },
      );
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return depth > 4 ? LEAF_JSON : anyJson;
  }
}

function validObject(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const properties = props(schema);
  const names = Object.keys(properties);
  if (names.length === 0 && schema.additionalProperties !== false) {
    // A free-form object (meta-tool `params`, artifact metadata, link context): a few members of any
    // JSON, sometimes one nested deep.
    const members = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }),
      depth > 3 ? LEAF_JSON : anyJson,
      {
        maxKeys: 4,
      },
    );
    return fc.oneof(
      { weight: 6, arbitrary: members },
      { weight: 1, arbitrary: deeplyNested.map((deep) => ({ nested: deep })) },
    );
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) model[name] = validValue(properties[name] as JsonSchema, depth + 1);
  return fc.record(model, { requiredKeys: requiredOf(schema).filter((name) => name in model) });
}

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = num(schema, 'minLength') ?? 0;
  const maxLength = num(schema, 'maxLength') ?? Math.max(minLength, 40);
  const fitLength = (arbitrary: fc.Arbitrary<string>) =>
    arbitrary.map((value) => value.slice(0, maxLength)).filter((value) => value.length >= minLength);
  switch (str(schema, 'format')) {
    case 'email':
      return fitLength(fc.emailAddress());
    case 'uri':
      return fitLength(fc.webUrl());
    case 'date':
      return fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .date({ min: new Date('1970-01-01'), max: new Date('2200-12-31'), noInvalidDate: true })
            .map((date) => date.toISOString().slice(0, 10)),
        },
        { weight: 1, arbitrary: fc.constantFrom(...EDGE_DATES) },
      );
    case 'date-time':
      return fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .date({ min: new Date('1970-01-01'), max: new Date('2200-12-31'), noInvalidDate: true })
            .map((date) => date.toISOString()),
        },
        { weight: 1, arbitrary: fc.constantFrom(...EDGE_TIMESTAMPS) },
      );
  }
  const pattern = str(schema, 'pattern');
  if (pattern !== undefined) {
    // Repeating a match keeps character-class patterns matching and reaches minLength without a
    // filter that would spin (a small `stringMatching` rarely reaches 16 characters on its own).
    const repeated = fc.stringMatching(new RegExp(pattern), { size: 'small' }).map((value) => {
      let out = value;
      while (value.length > 0 && out.length < minLength) out += value;
      return out;
    });
    return fitLength(repeated);
  }
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 40) }) },
    {
      weight: 1,
      arbitrary: fc.string({
        unit: 'grapheme',
        minLength,
        maxLength: Math.min(maxLength, minLength + 10),
      }),
    },
  );
}

/** Just over the gateway's default body limit (BODY_LIMIT_BYTES, 1 MiB). */
const BODY_LIMIT_PROBE = 1_100_000;

/** Strings of the boundary lengths min-1, min, max, max+1 (those that exist). */
function boundaryStrings(schema: JsonSchema): fc.Arbitrary<string> {
  const lengths = new Set<number>();
  const min = num(schema, 'minLength');
  const max = num(schema, 'maxLength');
  if (min !== undefined) {
    if (min > 0) lengths.add(min - 1);
    lengths.add(min);
  }
  if (max !== undefined) {
    lengths.add(max);
    lengths.add(max + 1);
  }
  if (lengths.size === 0) lengths.add(0).add(10_000);
  // Past the gateway's 1 MiB body limit the whole request is refused; no need to build 14 MB strings.
  const capped = [...lengths].map((length) => Math.min(length, BODY_LIMIT_PROBE));
  return fc
    .tuple(fc.constantFrom(...capped), fc.constantFrom('a', '0', '-', 'é', '😀'))
    .map(([length, unit]) => {
      // '😀' is two UTF-16 units: JSON Schema counts code points, so this also probes that rule.
      const repeated = unit.repeat(length);
      return unit.length === 2 ? repeated.slice(0, length * 2) : repeated;
    });
}

/** Values that most likely break the schema: one mutation in an otherwise plausible value. */
export function mutatedValue(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const generic = [
    { weight: 2, arbitrary: wrongType },
    { weight: depth === 0 ? 1 : 0, arbitrary: deeplyNested },
  ].filter((option) => option.weight > 0);
  const options = alternatives(schema);
  if (options) {
    return fc.oneof(
      ...generic,
      ...options.map((option) => ({ weight: 1, arbitrary: mutatedValue(option, depth + 1) })),
    );
  }
  if ('const' in schema || Array.isArray(schema.enum)) {
    return fc.oneof(...generic, {
      weight: 3,
      arbitrary: fc.constantFrom('', 'LOW', 'unknown', ...NASTY_STRINGS),
    });
  }
  switch (schema.type) {
    case 'object':
      return fc.oneof(...generic, { weight: 8, arbitrary: mutatedObject(schema, depth) });
    case 'array': {
      const items = (schema.items ?? {}) as JsonSchema;
      const minItems = num(schema, 'minItems') ?? 0;
      const maxItems = num(schema, 'maxItems');
      return fc.oneof(
        ...generic,
        { weight: 2, arbitrary: fc.array(mutatedValue(items, depth + 1), { minLength: 1, maxLength: 3 }) },
        { weight: minItems > 0 ? 1 : 0, arbitrary: fc.constant([]) },
        {
          weight: maxItems === undefined ? 0 : 1,
          arbitrary: fc.array(validValue(items, depth + 1), {
            minLength: (maxItems ?? 0) + 1,
            maxLength: (maxItems ?? 0) + 2,
          }),
        },
      );
    }
    case 'string':
      return fc.oneof(
        ...generic,
        { weight: 3, arbitrary: boundaryStrings(schema) },
        { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
        { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(validString(schema), fc.constantFrom(...NASTY_STRINGS))
            .map(([valid, nasty]) => `${valid}${nasty}`),
        },
      );
    case 'integer':
    case 'number': {
      const edges = [num(schema, 'minimum'), num(schema, 'maximum'), num(schema, 'exclusiveMinimum')]
        .filter((value): value is number => value !== undefined)
        .flatMap((value) => [value - 1, value, value + 1, value - 0.5, value + 0.5]);
      return fc.oneof(
        ...generic,
        { weight: 3, arbitrary: fc.constantFrom(...NASTY_NUMBERS, ...EXTREME_NUMBERS, ...edges) },
        { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
        { weight: 1, arbitrary: fc.constantFrom('1', '1e3', '0x10') },
      );
    }
    default:
      return fc.oneof(...generic, { weight: 1, arbitrary: deeplyNested });
  }
}

function mutatedObject(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const properties = props(schema);
  const names = Object.keys(properties);
  const valid = validObject(schema, depth) as fc.Arbitrary<Record<string, unknown>>;
  const required = requiredOf(schema);
  const extraName = fc.constantFrom(
    'extra',
    'organization_id',
    'constructor',
    // A computed key makes an own member (JSON.stringify sends it), as JSON.parse reads one.
    '__proto__',
    'toString',
    '',
    'ID',
    '😀',
    'a/b~c',
  );
  const withExtra = fc
    .tuple(valid, extraName, anyJson)
    .map(([value, name, extra]) => ({ ...value, [name]: extra }));
  const mutations: Array<{ weight: number; arbitrary: fc.Arbitrary<unknown> }> = [
    { weight: schema.additionalProperties === false ? 2 : 0, arbitrary: withExtra },
  ];
  if (required.length > 0) {
    mutations.push({
      weight: 2,
      arbitrary: fc.tuple(valid, fc.constantFrom(...required)).map(([value, name]) => {
        const { [name]: _dropped, ...rest } = value;
        return rest;
      }),
    });
  }
  if (names.length > 0 && depth < 4) {
    // Built once per property (not in a `chain`): constructing arbitraries is what costs time.
    const oneProperty = fc.oneof(
      ...names.map((name) =>
        fc
          .tuple(valid, mutatedValue(properties[name] as JsonSchema, depth + 1))
          .map(([value, bad]) => ({ ...value, [name]: bad })),
      ),
    );
    mutations.push({ weight: 6, arbitrary: oneProperty });
  }
  if (mutations.every((mutation) => mutation.weight === 0)) return fc.oneof(wrongType, withExtra);
  return fc.oneof(...mutations.filter((mutation) => mutation.weight > 0));
}

/** Half values the schema should accept, half mutated ones. */
export function schemaValue(schema: JsonSchema, validWeight = 1): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: validWeight, arbitrary: validValue(schema) },
    { weight: 1, arbitrary: mutatedValue(schema) },
  );
}
