/**
 * Redaction of secrets (API keys, one-time codes, tokens) from anything the SDK hands to a logger or puts
 * into an error. The spec says secrets must not be logged; the SDK never knows where its errors end up.
 */

/** What replaces a secret. */
export const REDACTED = '[redacted]';

// Field names whose values are secrets wherever they occur in a JSON body or header map.
const SECRET_FIELDS = new Set([
  'authorization',
  'otp',
  'token',
  'approval_token',
  'secret',
  'secret_once',
  'password',
  'pass',
  'api_key',
  'apikey',
  'access_token',
  'accesstoken',
  'bootstrapkey',
]);

// The spec's key format `<vendor>_ak_<prefix>.<secret>`: the prefix may stay, the secret never.
const API_KEY_IN_TEXT = /\b([a-z][a-z0-9]*_ak_[A-Za-z0-9]+)\.[A-Za-z0-9]+/g;
const BEARER_IN_TEXT = /\b(Bearer\s+)\S+/gi;

/** True when a field of this name holds a secret (case-insensitive). */
export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name.toLowerCase());
}

/** Replaces every known secret and anything shaped like an API key or bearer credential in `text`. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  // Key-shaped text first, so a key keeps its public prefix; then every other known secret verbatim.
  let out = text.replace(API_KEY_IN_TEXT, `$1.${REDACTED}`).replace(BEARER_IN_TEXT, `$1${REDACTED}`);
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** A deep copy of a JSON-like value with secret fields replaced and secrets scrubbed from strings. */
export function redactValue(value: unknown, secrets: readonly string[] = []): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = isSecretField(key) ? REDACTED : redactValue(inner, secrets);
    }
    return out;
  }
  return value;
}
