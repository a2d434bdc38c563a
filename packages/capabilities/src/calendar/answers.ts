import { type ErrorCode, errorCodes, errorEnvelope, isErrorCode } from '@agw/contracts';
import type { PublicResponse } from '../domain.js';
import type { BookingRefusal } from './booking-page-service.js';
import type { Locale, TEXT } from './messages.js';

/** The booking API's own codes (published before the gateway's table had them; kept for clients). */
type BookingCode = 'slot_taken' | 'email_binding_required';
const BOOKING_STATUS: Record<BookingCode, number> = { slot_taken: 409, email_binding_required: 403 };

/** A JSON answer that no cache keeps. */
export function json(status: number, body: unknown, extra: Record<string, string> = {}): PublicResponse {
  return { status, headers: { 'cache-control': 'no-store', ...extra }, body };
}

/**
 * A refusal in the spec's error envelope. `audit_id` is the request id: the gateway's request log line
 * under that id records the answer (status and error code); a refusal a route answers itself writes no
 * audit row. A wait is given as `retry_after_seconds` and `Retry-After` together; a bad field or query
 * parameter as `schema_pointer` (`/body/<field>`, `/query/<parameter>`) and one detail.
 */
export function problem(
  code: ErrorCode | BookingCode,
  message: string,
  requestId: string,
  options: { readonly pointer?: string; readonly retryAfterSeconds?: number } = {},
): PublicResponse {
  const { pointer, retryAfterSeconds } = options;
  const details =
    pointer === undefined ? undefined : [{ schema_pointer: pointer, keyword: 'calendar', message }];
  if (!isErrorCode(code)) {
    const error = { code, message, retryable: false, audit_id: requestId };
    return json(BOOKING_STATUS[code], {
      error: pointer === undefined ? error : { ...error, schema_pointer: pointer, details },
    });
  }
  const body = errorEnvelope(code, {
    auditId: requestId,
    message,
    ...(pointer === undefined ? {} : { schemaPointer: pointer, details }),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
  const wait = body.error.retry_after_seconds;
  return json(errorCodes[code].status, body, wait === undefined ? {} : { 'retry-after': String(wait) });
}

/** An HTML page under a nonce-only CSP. */
export function html(status: number, body: string, nonce: string, extra: Record<string, string> = {}) {
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The secret is in the path: never hand it to another site (same-origin still sends Origin).
      // connect-src 'self': the page's script reads the link's own /slots.
      'referrer-policy': 'same-origin',
      'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'x-robots-tag': 'noindex',
      ...extra,
    },
    body,
  } satisfies PublicResponse;
}

/**
 * A refused booking as JSON, with the reason in the booking page's language (the form shows it). A
 * full cap names when the oldest booking it counts leaves the hour.
 */
export function refusalAnswer(
  result: BookingRefusal,
  words: (typeof TEXT)[Locale],
  requestId: string,
): PublicResponse & { readonly reason: string } {
  const answer = (reason: string, response: PublicResponse) => ({ ...response, reason });
  switch (result.kind) {
    case 'gone':
      return answer(words.unavailable, problem('not_found', 'No such booking link.', requestId));
    case 'slot_taken':
      return answer(words.taken, problem('slot_taken', words.taken, requestId));
    case 'email_bound':
      return answer(words.emailBound, problem('email_binding_required', words.emailBound, requestId));
    case 'rate_limited': {
      const minutes = String(Math.ceil(result.retryAfterSeconds / 60));
      const reason = (result.scope === 'link' ? words.linkBusy : words.organizationBusy).replace(
        '{n}',
        minutes,
      );
      return answer(
        reason,
        problem('rate_limited', reason, requestId, { retryAfterSeconds: result.retryAfterSeconds }),
      );
    }
    case 'invalid':
      return answer(
        `${result.field}: ${result.message}`,
        problem('validation_failed', `${result.field}: ${result.message}`, requestId, {
          pointer: `/body/${result.field}`,
        }),
      );
  }
}
