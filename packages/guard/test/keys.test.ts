// Pins the API key format (regex, checksum, hash). Timing indistinguishability is a benchmark
// concern and not asserted here.
import { describe, expect, it } from 'vitest';
import { apiKeyPattern, generateApiKey, hashSecret, parseApiKey, verifySecret } from '../src/index.js';
import { crc32 } from '../src/keys.js';

describe('API key format', () => {
  it('generates 10 000 keys that match the published regex, verify their checksum and never share a prefix', () => {
    const prefixes = new Set<string>();
    for (let index = 0; index < 10_000; index += 1) {
      const key = generateApiKey();
      expect(key.token).toMatch(apiKeyPattern);
      expect(parseApiKey(key.token)).toEqual({ prefix: key.prefix, secret: key.secret });
      expect(key.hash).toBe(hashSecret(key.secret));
      prefixes.add(key.prefix);
    }
    expect(prefixes.size).toBe(10_000);
  });

  it('rejects a key whose checksum does not match, or that breaks the format', () => {
    const { token, prefix, secret } = generateApiKey();
    const flipped = secret[0] === 'a' ? `b${secret.slice(1)}` : `a${secret.slice(1)}`;
    expect(parseApiKey(`agw_ak_${prefix}.${flipped}`)).toBeUndefined();
    expect(parseApiKey(token.replace('agw_', 'xyz_'))).toBeUndefined();
    expect(parseApiKey(token.replace('.', '_'))).toBeUndefined();
    expect(parseApiKey(token.slice(0, -1))).toBeUndefined();
    expect(parseApiKey(`${token} `)).toBeUndefined();
  });

  it('computes the standard CRC-32', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
  });

  it('verifies a secret against its stored hash only', () => {
    const key = generateApiKey();
    expect(verifySecret(key.secret, key.hash)).toBe(true);
    expect(verifySecret(key.secret, hashSecret('other'))).toBe(false);
    expect(verifySecret(key.secret, undefined)).toBe(false);
    expect(verifySecret(key.secret, 'not-hex')).toBe(false);
  });
});
