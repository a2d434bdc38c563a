import { addContractFormats, contractFormatMessage } from '@agw/contracts';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { JsonSchema } from './guard.js';
import type { SchemaValidator, SchemaViolation } from './ports.js';

/** A {@link SchemaValidator} backed by ajv (JSON Schema 2020-12, strict, all errors, formats). */
export interface AjvSchemaValidator extends SchemaValidator {
  /** Compiles a schema now, e.g. every capability's input schema when the chain is built. */
  compile(schema: JsonSchema): void;
}

/**
 * Creates an ajv-backed validator (the same settings as the contracts' `createValidator()`, which may
 * be passed instead). Each schema is compiled once and cached by object identity.
 * Violation pointers point at the offending value; for `required` and `additionalProperties` at the
 * missing or extra member itself.
 */
export function createAjvSchemaValidator(): AjvSchemaValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  // The contracts' own formats (display-text, decimal-6): strict ajv refuses a schema using them otherwise.
  addContractFormats(ajv);
  const byObject = new WeakMap<object, ValidateFunction>();

  function compiled(schema: JsonSchema | string): ValidateFunction {
    if (typeof schema === 'string') {
      const registered = ajv.getSchema(schema);
      if (registered === undefined) throw new Error(`No schema registered as ${schema}`);
      return registered;
    }
    if (typeof schema === 'boolean') return ajv.compile(schema);
    let validate = byObject.get(schema);
    if (validate === undefined) {
      // Two objects carrying the same $id would clash inside ajv; compile later copies anonymously.
      const { $id, ...anonymous } = schema as { readonly $id?: unknown };
      validate =
        typeof $id === 'string' && ajv.getSchema($id) !== undefined
          ? ajv.compile(anonymous)
          : ajv.compile(schema);
      byObject.set(schema, validate);
    }
    return validate;
  }

  return {
    compile(schema) {
      compiled(schema);
    },
    validate(schema, value) {
      const validate = compiled(schema);
      if (validate(value)) return { valid: true };
      return { valid: false, violations: (validate.errors ?? []).map(toViolation) };
    },
  };
}

const memberParam: Readonly<Record<string, string>> = {
  required: 'missingProperty',
  dependentRequired: 'missingProperty',
  additionalProperties: 'additionalProperty',
  unevaluatedProperties: 'unevaluatedProperty',
  propertyNames: 'propertyName',
};

function toViolation(error: ErrorObject): SchemaViolation {
  const param = memberParam[error.keyword];
  const member = param === undefined ? undefined : (error.params as Record<string, unknown>)[param];
  const schema_pointer =
    typeof member === 'string'
      ? `${error.instancePath}/${member.replaceAll('~', '~0').replaceAll('/', '~1')}`
      : error.instancePath;
  const formatMessage =
    error.keyword === 'format'
      ? contractFormatMessage((error.params as { format?: unknown }).format)
      : undefined;
  return { schema_pointer, keyword: error.keyword, message: formatMessage ?? error.message ?? 'is invalid' };
}
