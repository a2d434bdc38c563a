import { createValidator, type SchemaName, type SchemaType } from '@agw/contracts';
import { GatewayError } from '../http/gateway-error.js';

const validator = createValidator();

/**
 * Validates a request body against its contracts schema: 400 `validation_failed` with the first
 * violation's `schema_pointer` and every violation in `details`.
 */
export function validateBody<N extends SchemaName>(name: N, body: unknown): SchemaType<N> {
  const result = validator.validate(name, body);
  if (result.valid) return body as SchemaType<N>;
  const [first] = result.violations;
  throw new GatewayError('validation_failed', {
    message: `The request body does not match ${name}.`,
    ...(first === undefined ? {} : { schemaPointer: first.schema_pointer }),
    details: result.violations.map((violation) => ({ ...violation })),
  });
}

/** A 400 `validation_failed` for one field that is well-formed but not acceptable here. */
export function fieldMismatch(pointer: string, message: string): GatewayError {
  return new GatewayError('validation_failed', {
    message,
    schemaPointer: pointer,
    details: [{ schema_pointer: pointer, keyword: 'const', message }],
  });
}
