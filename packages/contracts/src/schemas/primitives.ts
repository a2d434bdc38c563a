import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { schemaId } from '../version.js';
import { MAX_FREE_OBJECT_PROPERTIES, MAX_JSON_DEPTH } from './json-depth.js';

/**
 * The spec's `<uuid>`: 8-4-4-4-12 hex, version digit 1 to 5, variant 8, 9, a or b.
 * Hex digits are accepted in either case (RFC 9562 says UUIDs are case-insensitive on input).
 */
export const UUID_PATTERN =
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';

/** Capability id: at least three `.`-joined lowercase segments of letters, digits and `_`, each starting with a letter. */
export const CAPABILITY_ID_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*){2,}$';

/** Capability version (`1.0.0`). */
export const CAPABILITY_VERSION_PATTERN = '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$';

/** app.slug: lowercase letters, digits and `-`. */
export const APP_SLUG_PATTERN = '^[a-z0-9-]+$';

/** Calendar slugs (slug_base, slug, slug_suffix): lowercase letters, digits, `-`, starting with a letter or digit. */
export const CALENDAR_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]*$';

/** Scope names such as `core:read`, `platform.catalog:read`, `platform:bootstrap`. */
export const SCOPE_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*:[a-z][a-z0-9_]*$';

/** Bearer key format `<vendor>_ak_<prefix>.<secret>`. */
export const API_KEY_PATTERN = '^[a-z][a-z0-9]*_ak_[A-Za-z0-9]+\\.[A-Za-z0-9]+$';

/** An exact decimal as a string (money and credits are never floats on the wire when exactness matters). */
export const DECIMAL_PATTERN = '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$';

/** An RFC 6901 JSON Pointer (root is the empty string). */
export const JSON_POINTER_PATTERN = '^(/([^~/]|~[01])*)*$';

/** A path relative to the gateway's base address. */
export const RELATIVE_PATH_PATTERN = '^/[^\\s]*$';

/** Visible ASCII only (idempotency keys). */
export const VISIBLE_ASCII_PATTERN = '^[!-~]+$';

/** `<uuid>` string. */
export const Uuid = () => Type.String({ pattern: UUID_PATTERN });
/** `<date>`: `YYYY-MM-DD`. */
export const DateString = () =>
  Type.String({
    format: 'date',
    description: 'A calendar date as YYYY-MM-DD (ISO 8601), without a time or a time zone.',
    examples: ['2025-03-31'],
  });
/** `<timestamp>`: ISO 8601 date-time with offset. */
export const Timestamp = () =>
  Type.String({
    format: 'date-time',
    description:
      'An instant as an RFC 3339 (ISO 8601) date-time with a UTC offset; the gateway answers in UTC (`Z`).',
    examples: ['2025-03-31T14:30:00Z'],
  });
/** A SHA-256 digest (of a file, a content): 64 lower-case hex digits. */
export const Sha256Hex = () =>
  Type.String({
    pattern: '^[0-9a-f]{64}$',
    description: 'Written as 64 lower-case hexadecimal digits.',
    examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
  });
/** Email address (RFC 5321 caps a path at 320 characters in practice). */
export const Email = () => Type.String({ format: 'email', maxLength: 320 });
/** Exact decimal string. */
export const Decimal = () =>
  Type.String({
    pattern: DECIMAL_PATTERN,
    maxLength: 64,
    description: 'An exact decimal written as a string, so no float rounding touches it.',
    examples: ['12.50'],
  });
/** A non-negative exact decimal amount of credits, e.g. `'0'` or `'0.50'`. */
export const Credits = () =>
  Type.String({
    pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$',
    maxLength: 64,
    description: 'Credits as an exact decimal string (1 credit = 1 000 000 micro-credits).',
    examples: ['0.50'],
  });
/** An ISO 4217 currency code (the list and its rule live in ./currency.ts). */
export { Currency } from './currency.js';
/** Scope name. */
export const Scope = () => Type.String({ pattern: SCOPE_PATTERN, maxLength: 100 });
/** Most scopes one key, installation or capability carries: every known scope fits, with room to grow. */
export const MAX_SCOPES = 64;
/** A list of scope names. */
export const Scopes = () =>
  Type.Array(Scope(), { maxItems: MAX_SCOPES, description: `At most ${MAX_SCOPES} scopes.` });
/** Relative path such as `/mcp/invoke`. */
export const RelativePath = () => Type.String({ pattern: RELATIVE_PATH_PATTERN, maxLength: 512 });

/**
 * `schema` described as the field it stands for: `text` (what the field means to an agent: units, who
 * sets it, when it is null) leads, and what the schema already says (a standard's code list, a date
 * format) follows, so the standard is written once on its helper and every field still names it.
 */
export function Described<T extends TSchema>(schema: T, text: string, examples?: readonly unknown[]): T {
  const own = schema.description;
  return {
    ...schema,
    description: own === undefined ? text : `${text} ${own}`,
    ...(examples === undefined ? {} : { examples: [...examples] }),
  };
}

/** `X` or null (JSON Schema `anyOf: [X, {type: null}]`). */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A string of at most `max` characters that may be null (the spec's "nullable, max N"). */
export function NullableText(max: number) {
  return Nullable(Type.String({ maxLength: max }));
}

/** A closed object: no properties beyond the listed ones. */
export const Closed = { additionalProperties: false } as const;

/**
 * A free-form JSON object (records whose fields the spec does not show): at most
 * MAX_FREE_OBJECT_PROPERTIES members at its own level, and, like every request body, nested at most
 * MAX_JSON_DEPTH levels deep (checked before anything walks the body). The description says so, so
 * describe and the OpenAPI document show the bound.
 */
export function FreeObject(description?: string) {
  const bound = `At most ${MAX_FREE_OBJECT_PROPERTIES} members; the request body around it nests at most ${MAX_JSON_DEPTH} levels deep.`;
  return Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    maxProperties: MAX_FREE_OBJECT_PROPERTIES,
    description: description === undefined ? bound : `${description}. ${bound}`,
  });
}

/**
 * Reference to a named schema by its `$id`; the static type is the target's. Named schemas refer to
 * each other this way so every shape is written once and the OpenAPI components reference each other.
 */
export function Ref<T extends TSchema>(schema: T) {
  if (schema.$id === undefined) throw new Error('Ref target needs an $id');
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id));
}

/** Gives a schema its stable `$id` (`${SCHEMA_BASE_URI}/<name>`). */
export function idOf(name: string): { $id: string } {
  return { $id: schemaId(name) };
}
