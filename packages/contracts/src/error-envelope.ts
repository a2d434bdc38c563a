import { type ErrorCode, errorCodes } from './errors.js';
import type { ErrorEnvelope } from './schemas/error-envelope.js';

/** Generic developer-facing message per code; callers may pass a more specific one. */
export const defaultErrorMessages: Readonly<Record<ErrorCode, string>> = {
  validation_failed: 'The request does not match the schema.',
  invalid_json: 'The request body is not valid JSON.',
  bad_request: 'The request is malformed.',
  invalid_cursor: 'The cursor is not valid.',
  idempotency_key_required: 'This mutation needs an idempotency key.',
  idempotency_key_invalid: 'The idempotency key is not valid.',
  otp_invalid: 'The code is not valid.',
  otp_expired: 'The code has expired.',
  unauthenticated: 'Authentication is required.',
  invalid_api_key: 'The API key is not valid.',
  api_key_expired: 'The API key has expired.',
  api_key_revoked: 'The API key has been revoked.',
  forbidden: 'This operation is not allowed.',
  scope_missing: 'The API key lacks a required scope.',
  installation_blocked: 'The installation is blocked by the operator.',
  organization_inactive: 'The organization is inactive.',
  otp_attempts_exceeded: 'Too many wrong codes.',
  budget_exceeded: 'The budget does not allow this cost.',
  approval_invalid: 'The approval token is not valid for this request.',
  egress_denied: 'Outbound network access was denied.',
  email_binding_required: 'This booking link is bound to another email address.',
  origin_forbidden: 'Requests from this origin are not accepted.',
  not_found: 'Not found.',
  capability_not_found: 'No such capability or version.',
  method_not_allowed: 'Method not allowed on this path.',
  idempotency_key_reused: 'The idempotency key was already used with a different request.',
  idempotency_request_in_progress: 'A request with this idempotency key is still in progress.',
  conflict: 'The request conflicts with the current state.',
  otp_already_used: 'The code was already redeemed.',
  quote_invalid: 'The quote does not hold for this request.',
  otp_resend_cooldown: 'A code was sent recently.',
  slot_taken: 'This time was booked meanwhile.',
  precondition_failed: 'Onboarding is not complete for this operation.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'The content type is not supported.',
  rate_limited: 'Too many requests.',
  internal_error: 'An internal error occurred.',
  dependency_unavailable: 'A backing service is unavailable.',
};

/** What a caller supplies beyond the code when building an error body. */
export interface ErrorEnvelopeInit {
  auditId: string;
  message?: string;
  hint?: string;
  details?: Array<Record<string, unknown>>;
  schemaPointer?: string;
  retryAfterSeconds?: number;
  docUrl?: string;
}

/**
 * Builds `{ error: {...} }` for `code`: `retryable` and the default hint come from the error table,
 * the message defaults to a generic text. Optional members are present only when given. An error that
 * names a wait (`retryAfterSeconds`) is retryable after it, whatever the table says: `budget_exceeded`
 * is retryable only when the caps it broke reset at a known time.
 */
export function errorEnvelope(code: ErrorCode, init: ErrorEnvelopeInit): ErrorEnvelope {
  const info = errorCodes[code];
  const error: ErrorEnvelope['error'] = {
    code,
    message: init.message ?? defaultErrorMessages[code],
    retryable: info.retryable || init.retryAfterSeconds !== undefined,
    audit_id: init.auditId,
    hint: init.hint ?? info.hint,
  };
  if (init.retryAfterSeconds !== undefined)
    error.retry_after_seconds = Math.max(0, Math.ceil(init.retryAfterSeconds));
  if (init.schemaPointer !== undefined) error.schema_pointer = init.schemaPointer;
  if (init.details !== undefined) error.details = init.details;
  if (init.docUrl !== undefined) error.doc_url = init.docUrl;
  return { error };
}
