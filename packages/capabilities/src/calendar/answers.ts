import type { DomainHost, PublicResponse } from '../domain.js';
import type { BookingRefusal } from './booking-page-service.js';
import type { Locale, TEXT } from './messages.js';

/** A JSON answer that no cache keeps. */
export function json(status: number, body: unknown, extra: Record<string, string> = {}): PublicResponse {
  return { status, headers: { 'cache-control': 'no-store', ...extra }, body };
}

/**
 * 400 `validation_failed` for a bad field or query parameter: `schema_pointer` (`/body/<field>`,
 * `/query/<parameter>`) and one detail. Rendered by the gateway (host.error) like every refusal.
 */
export function invalidField(host: DomainHost, pointer: string, message: string): PublicResponse {
  return host.error('validation_failed', {
    message,
    schemaPointer: pointer,
    details: [{ schema_pointer: pointer, keyword: 'calendar', message }],
  });
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
  host: DomainHost,
  result: BookingRefusal,
  words: (typeof TEXT)[Locale],
): PublicResponse & { readonly reason: string } {
  const answer = (reason: string, response: PublicResponse) => ({ ...response, reason });
  switch (result.kind) {
    case 'gone':
      return answer(words.unavailable, host.error('not_found', { message: 'No such booking link.' }));
    case 'slot_taken':
      return answer(words.taken, host.error('slot_taken', { message: words.taken }));
    case 'email_bound':
      return answer(words.emailBound, host.error('email_binding_required', { message: words.emailBound }));
    case 'rate_limited': {
      const minutes = String(Math.ceil(result.retryAfterSeconds / 60));
      const reason = (result.scope === 'link' ? words.linkBusy : words.organizationBusy).replace(
        '{n}',
        minutes,
      );
      return answer(
        reason,
        host.error('rate_limited', { message: reason, retryAfterSeconds: result.retryAfterSeconds }),
      );
    }
    case 'invalid':
      return answer(
        `${result.field}: ${result.message}`,
        invalidField(host, `/body/${result.field}`, `${result.field}: ${result.message}`),
      );
  }
}
