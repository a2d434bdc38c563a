import { Type } from '@sinclair/typebox';
import { Closed, Nullable, NullableText } from '../schemas/primitives.js';

/** Shared pieces of capability schemas. Capability schemas are self-contained: no `$id`, no `$ref`. */

/** Page size 1..max. */
export const Limit = (max: number) => Type.Integer({ minimum: 1, maximum: max });
/** Offset >= 0. */
export const Offset = () => Type.Integer({ minimum: 0 });
/** Count >= 0. */
export const Count = () => Type.Integer({ minimum: 0 });
/** A string of min..max characters. */
export const Text = (minLength: number, maxLength: number) => Type.String({ minLength, maxLength });
/** Nullable free text, max 1000 characters (the spec's default for optional texts). */
export const NullableText1000 = () => NullableText(1000);
/** A number >= 0. */
export const NonNegative = () => Type.Number({ minimum: 0 });

/** A closed input object: "All inputs reject unknown properties". */
export function Input<T extends Parameters<typeof Type.Object>[0]>(properties: T) {
  return Type.Object(properties, Closed);
}

/** A closed output object. */
export function Output<T extends Parameters<typeof Type.Object>[0]>(properties: T) {
  return Type.Object(properties, Closed);
}

/** `{ records, count, limit, offset }` page of a list/search output. */
export function Page<T extends Parameters<typeof Type.Array>[0]>(record: T) {
  return Output({
    records: Type.Array(record),
    count: Count(),
    limit: Type.Integer({ minimum: 1 }),
    offset: Offset(),
  });
}

export { Nullable, NullableText };
