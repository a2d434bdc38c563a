import { createHash } from 'node:crypto';

/**
 * Canonical JSON of a plain JSON value, RFC 8785-like: object keys sorted by UTF-16 code units, no
 * whitespace, numbers and strings serialized as ECMAScript does (which RFC 8785 adopts). Two values
 * that mean the same JSON give the same string, so their hashes can bind approvals and audit records.
 * @throws TypeError for values JSON cannot represent (undefined, functions, bigint, NaN, Infinity,
 * class instances such as Date) — hashing something else than the wire value would be a silent bug.
 */
export function canonicalJson(value: unknown): string {
  // Loops and string appends rather than map/filter/join: the audit sealer hashes every audit row
  // through this (a read invoke's row costs about 18 µs with the array pipeline, CPU per request).
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value))
        throw new TypeError('Canonical JSON has no representation for NaN or Infinity.');
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? canonicalArray(value) : canonicalObject(value);
    default:
      throw new TypeError(`Canonical JSON cannot represent a ${typeof value}.`);
  }
}

function canonicalArray(items: readonly unknown[]): string {
  let out = '[';
  for (let index = 0; index < items.length; index += 1) {
    if (index > 0) out += ',';
    // A hole stays empty, as Array.prototype.map and join render it.
    if (index in items) out += canonicalJson(items[index]);
  }
  return `${out}]`;
}

function canonicalObject(value: object): string {
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError('Canonical JSON accepts only plain objects and arrays.');
  }
  const record = value as Record<string, unknown>;
  // The default sort compares UTF-16 code units, as RFC 8785 orders keys.
  const keys = Object.keys(record).sort();
  let out = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}

/** sha-256 of a UTF-8 string as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The params hash that binds approvals and audit records: sha-256 hex of the canonical JSON. */
export function hashParams(params: unknown): string {
  return sha256Hex(canonicalJson(params));
}
