import { GuardConfigError } from '../errors.js';
import { deny, type Guard, pass } from '../guard.js';
import type { SchemaValidator } from '../ports.js';

/** Options of {@link schemaGuard}. */
export interface SchemaGuardOptions {
  /** e.g. {@link createAjvSchemaValidator} or the contracts' `createValidator()`. */
  readonly validator: SchemaValidator;
}

/** Where params sit in the request body; violation pointers are made relative to the body. */
const paramsPointer = '/params';

/**
 * `schema`: `params` must match the capability's `input_schema`. Otherwise 400 `validation_failed`
 * with `schemaPointer` of the first violation and `details[]` of all, each pointer relative to the
 * request body (prefixed `/params`).
 */
export function schemaGuard(options: SchemaGuardOptions): Guard {
  if (typeof options?.validator?.validate !== 'function') {
    throw new GuardConfigError('schemaGuard needs validator: SchemaValidator.');
  }
  const { validator } = options;

  return {
    name: 'schema',
    check({ request }) {
      const result = validator.validate(request.capability.input_schema, request.params);
      if (result.valid) return pass();
      const details = result.violations.map((violation) => ({
        schema_pointer: `${paramsPointer}${violation.schema_pointer}`,
        keyword: violation.keyword,
        message: violation.message,
      }));
      const first = details[0];
      return deny(
        'validation_failed',
        first
          ? `params${first.schema_pointer.slice(paramsPointer.length)} ${first.message}`
          : 'params are invalid.',
        {
          schemaPointer: first?.schema_pointer ?? paramsPointer,
          details,
        },
      );
    },
  };
}
