import { createValidator, type ErrorCode, errorCodes, errorEnvelope, isErrorCode } from '@agw/contracts';
import { describe, expect, it } from 'vitest';

const codes = Object.keys(errorCodes) as ErrorCode[];

describe('error table', () => {
  it('is pinned: code → status, retryable', () => {
    const table = Object.fromEntries(
      codes.map((code) => [code, [errorCodes[code].status, errorCodes[code].retryable]]),
    );
    expect(table).toEqual({
      validation_failed: [400, false],
      invalid_json: [400, false],
      bad_request: [400, false],
      invalid_cursor: [400, false],
      idempotency_key_required: [400, false],
      idempotency_key_invalid: [400, false],
      otp_invalid: [400, false],
      otp_expired: [400, false],
      unauthenticated: [401, false],
      invalid_api_key: [401, false],
      api_key_expired: [401, false],
      api_key_revoked: [401, false],
      forbidden: [403, false],
      scope_missing: [403, false],
      installation_blocked: [403, false],
      organization_inactive: [403, false],
      otp_attempts_exceeded: [403, false],
      budget_exceeded: [403, false],
      approval_invalid: [403, false],
      egress_denied: [403, false],
      email_binding_required: [403, false],
      origin_forbidden: [403, false],
      not_found: [404, false],
      capability_not_found: [404, false],
      method_not_allowed: [405, false],
      idempotency_key_reused: [409, false],
      idempotency_request_in_progress: [409, true],
      conflict: [409, false],
      otp_already_used: [409, false],
      quote_invalid: [409, false],
      otp_resend_cooldown: [409, true],
      slot_taken: [409, false],
      precondition_failed: [412, false],
      payload_too_large: [413, false],
      unsupported_media_type: [415, false],
      rate_limited: [429, true],
      internal_error: [500, true],
      dependency_unavailable: [503, true],
    });
  });

  it('follows the retry rules: 429 and 503 retryable, 412 and other 4xx not', () => {
    for (const code of codes) {
      const { status, retryable, hint } = errorCodes[code];
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(hint.length, code).toBeGreaterThan(0);
      expect(code, code).toMatch(/^[a-z][a-z0-9_]*$/);
      if (status === 429 || status === 503) expect(retryable, code).toBe(true);
      if (status !== 409 && status !== 429 && status < 500) expect(retryable, code).toBe(false);
    }
    expect(errorCodes.precondition_failed).toMatchObject({ status: 412, retryable: false });
    expect(errorCodes.idempotency_request_in_progress.retryable).toBe(true);
    expect(errorCodes.idempotency_key_reused.retryable).toBe(false);
  });

  it('isErrorCode knows exactly the table', () => {
    expect(isErrorCode('precondition_failed')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('teapot')).toBe(false);
  });
});

describe('errorEnvelope', () => {
  const validator = createValidator();

  it('builds a valid envelope with defaults from the table', () => {
    const body = errorEnvelope('precondition_failed', { auditId: 'aud_1' });
    expect(body).toEqual({
      error: {
        code: 'precondition_failed',
        message: expect.any(String),
        retryable: false,
        audit_id: 'aud_1',
        hint: errorCodes.precondition_failed.hint,
      },
    });
    expect(validator.validate('ErrorEnvelope', body)).toEqual({ valid: true });
  });

  it('carries the optional members when given, and every code builds a valid envelope', () => {
    const body = errorEnvelope('rate_limited', {
      auditId: 'aud_2',
      message: 'Slow down.',
      hint: 'Wait.',
      retryAfterSeconds: 2.2,
      details: [{ schema_pointer: '/x', keyword: 'type', message: 'must be string' }],
      schemaPointer: '/x',
      docUrl: 'https://gateway.example/docs/errors#rate_limited',
    });
    expect(body.error).toMatchObject({
      message: 'Slow down.',
      hint: 'Wait.',
      retryable: true,
      retry_after_seconds: 3,
    });
    expect(validator.validate('ErrorEnvelope', body)).toEqual({ valid: true });
    for (const code of codes) {
      expect(validator.validate('ErrorEnvelope', errorEnvelope(code, { auditId: 'a' })), code).toEqual({
        valid: true,
      });
    }
  });
});
