import type { Static, TSchema } from '@sinclair/typebox';
import type { ErrorObject, ValidateFunction } from 'ajv';
// The class type by its named export: through the default import, a strict `nodenext` consumer of our
// declarations sees the CommonJS module (a namespace), not the class (TS2709).
import Ajv2020, { type Ajv2020 as Ajv } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { MAX_VIOLATIONS } from './schemas/error-envelope.js';
import { addContractFormats, contractFormatMessage } from './schemas/formats.js';
import { type SchemaName, schemas } from './schemas/index.js';
import { schemaId } from './version.js';

/** One schema violation; `schema_pointer` is an RFC 6901 pointer into the validated value. */
export interface Violation {
  schema_pointer: string;
  keyword: string;
  message: string;
}

/** Outcome of one validation. */
export type ValidationResult = { valid: true } | { valid: false; violations: Violation[] };

/** The static type of a named schema. */
export type SchemaType<N extends SchemaName> = Static<(typeof schemas)[N]>;

// At most this many violations are reported (Ajv runs with allErrors); the envelope's bound.
export { MAX_VIOLATIONS };

/** Thrown by `Validator.check` when the value does not match. */
export class ContractValidationError extends Error {
  readonly violations: Violation[];
  constructor(violations: Violation[]) {
    const first = violations[0];
    super(
      first === undefined
        ? 'value does not match the schema'
        : `value does not match the schema at "${first.schema_pointer}": ${first.message}`,
    );
    this.name = 'ContractValidationError';
    this.violations = violations;
  }
}

/** Validates values against the named schemas or any capability schema; compiles each schema once. */
export interface Validator {
  /** Validates `value`; never throws for a non-matching value. */
  validate(schema: SchemaName | TSchema, value: unknown): ValidationResult;
  /** Type guard form of `validate`. */
  is<N extends SchemaName>(schema: N, value: unknown): value is SchemaType<N>;
  is<T extends TSchema>(schema: T, value: unknown): value is Static<T>;
  /** Returns the value typed, or throws `ContractValidationError`. */
  check<N extends SchemaName>(schema: N, value: unknown): SchemaType<N>;
  check<T extends TSchema>(schema: T, value: unknown): Static<T>;
}

/** RFC 6901 escaping of one reference token. */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * For keywords about a member rather than a value, the Ajv param naming that member. Ajv points
 * `instancePath` at the parent object for these; the spec wants the pointer at the member itself.
 */
const MEMBER_PARAM: Readonly<Record<string, string>> = {
  required: 'missingProperty',
  dependentRequired: 'missingProperty',
  additionalProperties: 'additionalProperty',
  unevaluatedProperties: 'unevaluatedProperty',
  propertyNames: 'propertyName',
};

/** Maps an Ajv error to a violation whose pointer names the offending or missing member. */
export function toViolation(error: ErrorObject): Violation {
  const param = MEMBER_PARAM[error.keyword];
  const member = param === undefined ? undefined : (error.params as Record<string, unknown>)[param];
  const pointer =
    typeof member === 'string' ? `${error.instancePath}/${escapePointerToken(member)}` : error.instancePath;
  const formatMessage =
    error.keyword === 'format'
      ? contractFormatMessage((error.params as { format?: unknown }).format)
      : undefined;
  return {
    schema_pointer: pointer,
    keyword: error.keyword,
    message: formatMessage ?? error.message ?? 'is invalid',
  };
}

/**
 * Ajv 2020-12 in strict mode with formats (ajv-formats and the contracts' own `display-text` and
 * `decimal-6`); every named schema registered under its `$id`.
 */
export function createAjv(): Ajv {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  addContractFormats(ajv);
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return ajv;
}

function isSchemaName(schema: SchemaName | TSchema): schema is SchemaName {
  return typeof schema === 'string';
}

/**
 * Creates a validator. Named schemas are compiled on first use and cached by name; other schemas
 * (capability inputs and outputs) are cached by object identity, so pass the same object each time.
 */
export function createValidator(): Validator {
  const ajv = createAjv();
  const byName = new Map<SchemaName, ValidateFunction>();
  const byObject = new WeakMap<TSchema, ValidateFunction>();

  function compiled(schema: SchemaName | TSchema): ValidateFunction {
    if (isSchemaName(schema)) {
      let fn = byName.get(schema);
      if (fn === undefined) {
        fn = ajv.getSchema(schemaId(schema));
        if (fn === undefined) throw new Error(`Unknown schema name: ${schema}`);
        byName.set(schema, fn);
      }
      return fn;
    }
    let fn = byObject.get(schema);
    if (fn === undefined) {
      const registered = schema.$id === undefined ? undefined : ajv.getSchema(schema.$id);
      if (registered !== undefined && registered.schema === schema) fn = registered;
      else if (registered !== undefined) {
        // Another schema already owns this $id: compile this one anonymously instead of clashing.
        const { $id: _ignored, ...anonymous } = schema;
        fn = ajv.compile(anonymous);
      } else fn = ajv.compile(schema);
      byObject.set(schema, fn);
    }
    return fn;
  }

  function validate(schema: SchemaName | TSchema, value: unknown): ValidationResult {
    const fn = compiled(schema);
    if (fn(value)) return { valid: true };
    const violations = (fn.errors ?? []).slice(0, MAX_VIOLATIONS).map(toViolation);
    return { valid: false, violations };
  }

  function is(schema: SchemaName | TSchema, value: unknown): boolean {
    return compiled(schema)(value) === true;
  }

  function check(schema: SchemaName | TSchema, value: unknown): unknown {
    const result = validate(schema, value);
    if (!result.valid) throw new ContractValidationError(result.violations);
    return value;
  }

  // The overloads of `is` and `check` are type-level views of these two untyped functions.
  return { validate, is, check } as unknown as Validator;
}
