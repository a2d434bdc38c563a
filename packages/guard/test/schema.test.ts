// The schema guard alone with the ajv validator: pointers are relative to the request body.
import { describe, expect, it } from 'vitest';
import {
  createAjvSchemaValidator,
  GuardConfigError,
  type SchemaValidator,
  schemaGuard,
} from '../src/index.js';
import { context } from './fixtures.js';

describe('schema guard', () => {
  const guard = schemaGuard({ validator: createAjvSchemaValidator() });

  it('passes params that match the input schema', () => {
    expect(guard.check(context())).toEqual({ outcome: 'pass' });
  });

  it('answers 400 validation_failed pointing into /params, with every violation in details', () => {
    const decision = guard.check(context({ params: { mime_type: '', size: -1, extra: true } }));
    expect(decision).toMatchObject({ outcome: 'deny', code: 'validation_failed' });
    if (decision instanceof Promise || decision.outcome !== 'deny') throw new Error('expected a denial');
    const pointers = decision.details?.map((detail) => detail.schema_pointer);
    expect(pointers).toEqual(
      expect.arrayContaining(['/params/file_name', '/params/extra', '/params/mime_type', '/params/size']),
    );
    expect(decision.schemaPointer).toBe(pointers?.[0]);
    expect(decision.details?.every((detail) => typeof detail.keyword === 'string')).toBe(true);
  });

  it('points at /params itself when params is not an object', () => {
    expect(guard.check(context({ params: 'text' }))).toMatchObject({ schemaPointer: '/params' });
  });

  it('accepts any validator through the port, e.g. the contracts one', () => {
    const validator: SchemaValidator = {
      validate: () => ({
        valid: false,
        violations: [{ schema_pointer: '/a/0', keyword: 'type', message: 'must be string' }],
      }),
    };
    expect(schemaGuard({ validator }).check(context())).toMatchObject({
      schemaPointer: '/params/a/0',
      details: [{ schema_pointer: '/params/a/0', keyword: 'type', message: 'must be string' }],
    });
  });

  it('validates its options at construction', () => {
    expect(() => schemaGuard({} as never)).toThrow(GuardConfigError);
  });
});
