import type { SecretBox } from '../secrets/secret-box.js';

/** How many hex characters of a key's hash the audit keeps: enough to correlate, useless to replay. */
export const AUDIT_KEY_HASH_LENGTH = 16;

/**
 * The form in which an idempotency key is stored and passed around: HMAC-SHA-256 under the server
 * secret, hex. A client's key is an unguessable handle on a stored answer, so it is never stored in
 * clear (issue 12, finding 2): a plain hash would not do, short keys are brute-forced from it.
 */
export function hashIdempotencyKey(box: SecretBox, key: string): string {
  return box.mac('idempotency-key', key).toString('hex');
}

/** What an audit row records of a hashed key: its first 16 hex characters. */
export function auditKeyHash(keyHash: string): string {
  return keyHash.slice(0, AUDIT_KEY_HASH_LENGTH);
}
