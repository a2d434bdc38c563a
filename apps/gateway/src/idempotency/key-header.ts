import { GatewayError } from '../http/gateway-error.js';

/** The request header that carries the idempotency key. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** The response header that marks a replayed answer. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

// Visible ASCII without `,` and `"` (security rules 1.2.2); 16 to 128 characters (spec limits).
const VALID_KEY = /^[\x21\x23-\x2b\x2d-\x7e]{16,128}$/;

/**
 * Reads the Idempotency-Key header: the bare form or the RFC 8941 string form `"..."`.
 * Missing → 400 `idempotency_key_required`; empty, repeated or malformed → 400 `idempotency_key_invalid`.
 */
export function parseIdempotencyKey(raw: string | readonly string[] | undefined): string {
  // Node joins repeated headers with ", ", which the comma rule below refuses.
  const header = Array.isArray(raw) ? raw.join(', ') : (raw as string | undefined);
  if (header === undefined) {
    throw new GatewayError('idempotency_key_required', {
      message: 'This mutation needs an Idempotency-Key header.',
    });
  }
  const unquoted =
    header.length >= 2 && header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header;
  if (!VALID_KEY.test(unquoted)) {
    throw new GatewayError('idempotency_key_invalid', {
      message:
        'The Idempotency-Key header must be 16 to 128 visible ASCII characters without comma or double quote.',
    });
  }
  return unquoted;
}
