import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key format `agw_ak_<prefix>.<secret>`:
 * - prefix: 12 random base62 characters, stored in clear, unique, used for lookup and safe to log;
 * - secret: 32 random base62 characters followed by a 6-character base62 CRC32 checksum of
 *   `agw_ak_<prefix>.<random part>`, so a scanner (and the gateway, before any lookup) can tell a real
 *   key from a random string offline (GitHub's token layout).
 * Only sha-256 of the secret is stored.
 */
export const apiKeyPattern = /^agw_ak_([A-Za-z0-9]{12})\.([A-Za-z0-9]{38})$/;

const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const prefixLength = 12;
const randomSecretLength = 32;
const checksumLength = 6;

/** A freshly generated key: the token is shown once; store only prefix and hash. */
export interface GeneratedApiKey {
  readonly token: string;
  readonly prefix: string;
  readonly secret: string;
  /** sha-256 hex of the secret part. */
  readonly hash: string;
}

/** A key that parsed and whose checksum verified. */
export interface ParsedApiKey {
  readonly prefix: string;
  readonly secret: string;
}

/**
 * Uniformly random base62 characters from the CSPRNG (rejection sampling: bytes ≥ 248 are dropped so
 * no character is more likely than another).
 */
export function randomBase62(length: number): string {
  let result = '';
  while (result.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && result.length < length) result += base62Alphabet[byte % 62];
    }
  }
  return result;
}

/** Generates a new API key. */
export function generateApiKey(): GeneratedApiKey {
  const prefix = randomBase62(prefixLength);
  const random = randomBase62(randomSecretLength);
  const secret = `${random}${checksumOf(prefix, random)}`;
  return { token: `agw_ak_${prefix}.${secret}`, prefix, secret, hash: hashSecret(secret) };
}

/**
 * Parses a key strictly; undefined when it does not match {@link apiKeyPattern} or its checksum is
 * wrong. No lookup is needed to reject such a key.
 */
export function parseApiKey(token: string): ParsedApiKey | undefined {
  const match = typeof token === 'string' ? apiKeyPattern.exec(token) : null;
  if (!match) return undefined;
  const [, prefix = '', secret = ''] = match;
  const random = secret.slice(0, randomSecretLength);
  if (checksumOf(prefix, random) !== secret.slice(randomSecretLength)) return undefined;
  return { prefix, secret };
}

/** sha-256 hex of a secret. Secrets are high-entropy, so a fast hash without salt is enough. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

const dummyDigest = createHash('sha256').update('agw-dummy-key-digest').digest();

/**
 * Compares a presented secret with a stored sha-256 hex digest in constant time over two 32-byte
 * digests. With `storedHash` undefined (unknown prefix) it still hashes and compares against a fixed
 * dummy digest, so timing does not tell whether the prefix exists; it then returns false.
 */
export function verifySecret(secret: string, storedHash: string | undefined): boolean {
  const presented = createHash('sha256').update(secret, 'utf8').digest();
  const stored =
    storedHash !== undefined && /^[0-9a-f]{64}$/.test(storedHash)
      ? Buffer.from(storedHash, 'hex')
      : undefined;
  const equal = timingSafeEqual(presented, stored ?? dummyDigest);
  return stored !== undefined && equal;
}

/** 6-character base62 CRC32 of `agw_ak_<prefix>.<random>`. */
function checksumOf(prefix: string, random: string): string {
  let value = crc32(`agw_ak_${prefix}.${random}`);
  let encoded = '';
  for (let index = 0; index < checksumLength; index += 1) {
    encoded = base62Alphabet[value % 62] + encoded;
    value = Math.floor(value / 62);
  }
  return encoded;
}

const crcTable = Array.from({ length: 256 }, (_, index) => {
  let value = index;
  for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});

/** CRC-32 (IEEE) of a string's UTF-8 bytes, as an unsigned integer. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
