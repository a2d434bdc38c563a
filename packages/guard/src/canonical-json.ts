import { createHash } from 'node:crypto';

/**
 * Canonical JSON of a plain JSON value, RFC 8785-like: object keys sorted by UTF-16 code units, no
 * whitespace, numbers and strings serialized as ECMAScript does (which RFC 8785 adopts). Two values
 * that mean the same JSON give the same string, so their hashes can bind approvals and audit records.
 * @throws TypeError for values JSON cannot represent (undefined, functions, bigint, NaN, Infinity,
 * class instances such as Date) — hashing something else than the wire value would be a silent bug.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new TypeError('Canonical JSON has no representation for NaN or Infinity.');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new TypeError('Canonical JSON accepts only plain objects and arrays.');
    }
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`Canonical JSON cannot represent a ${typeof value}.`);
}

/** sha-256 of a UTF-8 string as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The params hash that binds approvals and audit records: sha-256 hex of the canonical JSON. */
export function hashParams(params: unknown): string {
  return sha256Hex(canonicalJson(params));
}
