import { createValidator } from '@agw/contracts';
import { expect } from 'vitest';

const validator = createValidator();

/** `text` parsed as JSON, or undefined when it is not JSON (an answer is read before it is judged). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Asserts `body` is a valid ErrorEnvelope with `code` and returns its `error` member. */
export function expectEnvelope(body: unknown, code: string): Record<string, unknown> {
  expect(validator.validate('ErrorEnvelope', body)).toEqual({ valid: true });
  const error = (body as { error: Record<string, unknown> }).error;
  expect(error.code).toBe(code);
  return error;
}

/** Asserts `body` validates against the named contracts schema. */
export function expectSchema(name: Parameters<typeof validator.validate>[0], body: unknown): void {
  expect(validator.validate(name, body)).toEqual({ valid: true });
}

/** The pattern of a UUID v4. */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
