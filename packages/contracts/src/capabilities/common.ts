import { Type } from '@sinclair/typebox';
import { MAX_OFFSET } from '../schemas/numbers.js';
import { Closed, Described, Nullable, NullableText } from '../schemas/primitives.js';

/**
 * Shared pieces of capability schemas. Capability schemas are self-contained (no `$id`, no `$ref`),
 * because describe hands them to clients verbatim; so every fragment is a function that builds a fresh
 * copy at each use instead of a named schema that would be referenced.
 */

/** Page size 1..max. */
export const Limit = (max: number) => Type.Integer({ minimum: 1, maximum: max });
/** Offset 0..MAX_OFFSET (an unbounded integer would let 1e308 through: JSON Schema calls it an integer). */
export const Offset = () => Type.Integer({ minimum: 0, maximum: MAX_OFFSET });
/** Count >= 0. */
export const Count = () => Type.Integer({ minimum: 0 });
/** A string of min..max characters. */
export const Text = (minLength: number, maxLength: number) => Type.String({ minLength, maxLength });
/** Nullable free text, max 1000 characters (the spec's default for optional texts). */
export const NullableText1000 = () => NullableText(1000);
/** A string or null, without a length rule (outputs whose lengths the spec does not give). */
export const NullableString = () => Nullable(Type.String());
/** A number >= 0. */
export const NonNegative = () => Type.Number({ minimum: 0 });
/** One of the given string values (an enum written as `anyOf` of `const`s, as TypeBox emits it). */
export const OneOf = <const T extends string>(values: readonly T[]) =>
  Type.Union(values.map((value) => Type.Literal(value)));

/** Standard base64 (RFC 4648 alphabet with padding). */
export const BASE64_PATTERN = '^[A-Za-z0-9+/]*={0,2}$';
/** Non-empty base64 content. */
export const Base64 = () => Type.String({ minLength: 1, pattern: BASE64_PATTERN });

/** A closed input object: "All inputs reject unknown properties". */
export function Input<T extends Parameters<typeof Type.Object>[0]>(properties: T) {
  return Type.Object(properties, Closed);
}

/** A closed output object. */
export function Output<T extends Parameters<typeof Type.Object>[0]>(properties: T) {
  return Type.Object(properties, Closed);
}

/** Largest page a list/search capability serves ("billing, assist list up to 100"). */
const PAGE_SIZE_MAX = 100;

/** The paging fields of a list/search input: `limit` 1..100 and `offset` >= 0, both optional. */
export const PagingQuery = () => ({
  limit: Type.Optional(
    Described(Limit(PAGE_SIZE_MAX), `Most records to answer, 1 to ${PAGE_SIZE_MAX}; 20 when left out.`),
  ),
  offset: Type.Optional(Described(Offset(), 'Records to skip before the page starts; 0 when left out.')),
});

/** The paging fields of a list/search output: how many records came back and the page asked for. */
export const PageInfo = () => ({
  count: Described(Count(), 'Records on this page; fewer than limit means the last page.'),
  limit: Described(Type.Integer({ minimum: 1 }), 'The page size applied.'),
  offset: Described(Offset(), 'The offset applied; ask for offset + count to read on.'),
});

/** The records of one page of a list/search output: at most the largest `limit`. */
export function PageOf<T extends Parameters<typeof Type.Array>[0]>(record: T) {
  return Type.Array(record, {
    maxItems: PAGE_SIZE_MAX,
    description: `One page: at most the request's \`limit\` (${PAGE_SIZE_MAX} at most).`,
  });
}

/** `{ records, count, limit, offset }` page of a list/search output. */
export function Page<T extends Parameters<typeof Type.Array>[0]>(record: T) {
  return Output({ records: PageOf(record), ...PageInfo() });
}
