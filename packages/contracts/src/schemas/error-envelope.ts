import { type Static, Type } from '@sinclair/typebox';
import { Closed, FreeObject, idOf, JSON_POINTER_PATTERN } from './primitives.js';

/** At most this many violations are reported in `details[]` (and a dry run's `violations[]`): the first ones. */
export const MAX_VIOLATIONS = 20;

/** Most members a violation carries (schema_pointer, keyword, message and a few of a handler's own). */
const MAX_VIOLATION_MEMBERS = 16;

/** One schema violation as it appears in `error.details[]` of a `validation_failed` error. */
export const ViolationDetail = Type.Object(
  {
    schema_pointer: Type.String({ pattern: JSON_POINTER_PATTERN }),
    keyword: Type.String({ minLength: 1 }),
    message: Type.String(),
  },
  { ...idOf('ViolationDetail'), additionalProperties: true, maxProperties: MAX_VIOLATION_MEMBERS },
);
export type ViolationDetail = Static<typeof ViolationDetail>;

/** `{ error: {...} }`: the body of every gateway error; nothing else at either level. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ pattern: '^[a-z][a-z0-9_]*$', maxLength: 64 }),
        message: Type.String({ minLength: 1 }),
        retryable: Type.Boolean(),
        audit_id: Type.String({ minLength: 1, maxLength: 128 }),
        hint: Type.Optional(Type.String()),
        retry_after_seconds: Type.Optional(Type.Integer({ minimum: 0 })),
        schema_pointer: Type.Optional(Type.String({ pattern: JSON_POINTER_PATTERN })),
        details: Type.Optional(
          Type.Array(FreeObject(), {
            maxItems: MAX_VIOLATIONS,
            description: `The first ${MAX_VIOLATIONS} violations at most.`,
          }),
        ),
        doc_url: Type.Optional(Type.String({ format: 'uri' })),
      },
      Closed,
    ),
  },
  { ...idOf('ErrorEnvelope'), ...Closed },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;
