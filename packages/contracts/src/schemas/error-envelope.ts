import { type Static, Type } from '@sinclair/typebox';
import { Closed, FreeObject, idOf, JSON_POINTER_PATTERN } from './primitives.js';

/** One schema violation as it appears in `error.details[]` of a `validation_failed` error. */
export const ViolationDetail = Type.Object(
  {
    schema_pointer: Type.String({ pattern: JSON_POINTER_PATTERN }),
    keyword: Type.String({ minLength: 1 }),
    message: Type.String(),
  },
  { ...idOf('ViolationDetail'), additionalProperties: true },
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
        details: Type.Optional(Type.Array(FreeObject())),
        doc_url: Type.Optional(Type.String({ format: 'uri' })),
      },
      Closed,
    ),
  },
  { ...idOf('ErrorEnvelope'), ...Closed },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;
