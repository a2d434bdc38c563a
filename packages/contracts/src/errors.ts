/**
 * The closed set of error codes the gateway answers with, their HTTP status, whether a retry with the
 * same request can succeed, and the default hint. The spec names only `precondition_failed`; every other
 * code is our decision and is documented in docs/errors.md (a test keeps the two in step).
 */
export const errorCodes = {
  validation_failed: {
    status: 400,
    retryable: false,
    hint: 'The request does not match the schema; see details[] for each violation and its JSON Pointer.',
  },
  invalid_json: { status: 400, retryable: false, hint: 'Send a syntactically valid JSON body.' },
  bad_request: { status: 400, retryable: false, hint: 'Check the request line and headers.' },
  invalid_cursor: {
    status: 400,
    retryable: false,
    hint: 'Pass next_cursor exactly as returned, or omit cursor to start from the first page.',
  },
  idempotency_key_required: {
    status: 400,
    retryable: false,
    hint: 'Send an idempotency key of 16 to 128 visible ASCII characters, e.g. a UUID v4: the Idempotency-Key header on access endpoints, the idempotency_key body field on invoke.',
  },
  idempotency_key_invalid: {
    status: 400,
    retryable: false,
    hint: 'Idempotency keys are 16 to 128 visible ASCII characters without comma or double quote.',
  },
  otp_invalid: { status: 400, retryable: false, hint: 'Submit the code exactly as delivered.' },
  otp_expired: { status: 400, retryable: false, hint: 'Request a fresh code with the resend endpoint.' },
  unauthenticated: {
    status: 401,
    retryable: false,
    hint: 'Send Authorization: Bearer agw_ak_<prefix>.<secret>.',
  },
  invalid_api_key: {
    status: 401,
    retryable: false,
    hint: 'The key is malformed, unknown or wrong. A lost installation key cannot be recovered.',
  },
  api_key_expired: { status: 401, retryable: false, hint: 'Rotate keys before they expire.' },
  api_key_revoked: { status: 401, retryable: false, hint: 'Use the key returned by /keys/rotate.' },
  forbidden: { status: 403, retryable: false, hint: 'This key may not perform this operation.' },
  scope_missing: {
    status: 403,
    retryable: false,
    hint: 'The installation key lacks a scope this capability needs; read describe for its scopes.',
  },
  installation_blocked: {
    status: 403,
    retryable: false,
    hint: 'The operator blocked this installation: stop and hand over to a human.',
  },
  organization_inactive: {
    status: 403,
    retryable: false,
    hint: 'The organization is inactive: stop and hand over to the operator.',
  },
  otp_attempts_exceeded: {
    status: 403,
    retryable: false,
    hint: 'Too many wrong codes: request a fresh code with the resend endpoint.',
  },
  budget_exceeded: {
    status: 403,
    retryable: false,
    hint: 'The wallet balance or a budget cap does not allow this cost; ask the operator to fund or raise the cap.',
  },
  approval_invalid: {
    status: 403,
    retryable: false,
    hint: 'The approval token was denied, expired, or belongs to other params; invoke again without it to ask anew.',
  },
  egress_denied: {
    status: 403,
    retryable: false,
    hint: 'The capability tried to reach a host that is not on the egress allow-list.',
  },
  email_binding_required: {
    status: 403,
    retryable: false,
    hint: 'This booking link is bound to the address it was sent to: book with that email address.',
  },
  origin_forbidden: { status: 403, retryable: false, hint: 'Requests from this Origin are not accepted.' },
  not_found: { status: 404, retryable: false, hint: 'Check the path; GET /llms.txt lists every endpoint.' },
  capability_not_found: {
    status: 404,
    retryable: false,
    hint: 'Use search_capabilities to find capability ids and describe to list their versions.',
  },
  method_not_allowed: {
    status: 405,
    retryable: false,
    hint: 'See the Allow header for the methods of this path.',
  },
  idempotency_key_reused: {
    status: 409,
    retryable: false,
    hint: 'This idempotency key was used with a different request; use a fresh key for a new mutation.',
  },
  idempotency_request_in_progress: {
    status: 409,
    retryable: true,
    hint: 'The first request with this key is still running; retry with the same key after retry_after_seconds.',
  },
  conflict: {
    status: 409,
    retryable: false,
    hint: 'The resource is not in a state that allows this change.',
  },
  otp_already_used: { status: 409, retryable: false, hint: 'This code was already redeemed.' },
  quote_invalid: {
    status: 409,
    retryable: false,
    hint: 'The quote is forged, expired, issued to another installation, or for other params or a lower price; run dry_run again for a fresh quote, or invoke without one.',
  },
  otp_resend_cooldown: {
    status: 409,
    retryable: true,
    hint: 'A fresh code was sent recently; wait retry_after_seconds before asking again.',
  },
  slot_taken: {
    status: 409,
    retryable: false,
    hint: 'Someone booked this time first: read the free slots again and pick another.',
  },
  precondition_failed: {
    status: 412,
    retryable: false,
    hint: 'Onboarding is not complete: redeem the missing codes or wait for operator approval; do not retry in a loop.',
  },
  payload_too_large: { status: 413, retryable: false, hint: 'Send a smaller body.' },
  unsupported_media_type: {
    status: 415,
    retryable: false,
    hint: 'Send Content-Type: application/json.',
  },
  rate_limited: { status: 429, retryable: true, hint: 'Wait retry_after_seconds before the next request.' },
  internal_error: {
    status: 500,
    retryable: true,
    hint: 'An unexpected error; retry with the same idempotency key, and report the audit_id if it persists.',
  },
  dependency_unavailable: {
    status: 503,
    retryable: true,
    hint: 'A backing service is unavailable; retry with the same idempotency key after retry_after_seconds.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** One row of the error table. */
export interface ErrorCodeInfo {
  readonly status: number;
  readonly retryable: boolean;
  readonly hint: string;
}

/** Every error code the gateway can answer with. */
export type ErrorCode = keyof typeof errorCodes;

/** True when `code` is one of the gateway's error codes. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCodes, code);
}
