import { ConnectionError, GatewayError } from './errors.js';

/** First backoff step in milliseconds (before jitter). */
export const BASE_DELAY_MS = 500;
/** Largest backoff in milliseconds (before jitter). */
export const MAX_DELAY_MS = 8_000;

// Statuses a proxy or load balancer answers with when the gateway is briefly unreachable.
const RETRYABLE_STATUSES_WITHOUT_ENVELOPE = new Set([429, 502, 503, 504]);

/** Whether an answer that is not the gateway's envelope (a proxy page) is worth another try. */
export function isRetryableStatusWithoutEnvelope(status: number): boolean {
  return RETRYABLE_STATUSES_WITHOUT_ENVELOPE.has(status);
}

/**
 * Whether a failed try may be repeated with the same request (and the same idempotency key):
 * - connection failures and timeouts: yes;
 * - a gateway envelope: its `retryable` flag decides, and 503 is always retryable;
 * - a body that is not the envelope (proxy page): only 429, 502, 503 and 504.
 * Never: 412 `precondition_failed` (the spec says wait and redeem, do not loop) or any other
 * non-retryable 4xx, since the same request cannot succeed.
 */
export function isRetryable(error: unknown): boolean {
  if (ConnectionError.isConnectionError(error)) return true;
  if (!GatewayError.isGatewayError(error)) return false;
  // `unexpected_response` errors carry isRetryableStatusWithoutEnvelope(status) as their flag.
  return error.retryable || error.status === 503;
}

/**
 * Milliseconds to wait before retry number `retryIndex` (0 for the first retry), or `undefined` when the
 * server asks for a longer wait than `maxRetryAfterSeconds` (the caller then gets the error and decides).
 * The server's `retry_after_seconds`/`Retry-After` is honoured exactly; otherwise exponential backoff with
 * full jitter: a uniform draw from [0, min(MAX_DELAY_MS, BASE_DELAY_MS * 2^retryIndex)).
 */
export function retryDelayMs(
  error: unknown,
  retryIndex: number,
  options: { random: () => number; maxRetryAfterSeconds: number },
): number | undefined {
  const serverSeconds = GatewayError.isGatewayError(error) ? error.retryAfterSeconds : undefined;
  if (serverSeconds !== undefined) {
    return serverSeconds > options.maxRetryAfterSeconds ? undefined : serverSeconds * 1000;
  }
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retryIndex);
  return Math.floor(options.random() * ceiling);
}

/** Reads `Retry-After` (RFC 9110: delay-seconds or an HTTP-date) as whole seconds from `nowMs`. */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}
