// The server secret behind idempotency fingerprints, code MACs and encryption at rest: SECRET_KEY
// parsing, the generated DATA_DIR/secret.key (0600, stable, path logged but never the value), and
// ciphertexts that only the same secret opens.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, loadServerSecret, SecretBox } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog } from './helpers/log-capture.js';

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agw-secret-test-'));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('server secret', () => {
  it('SECRET_KEY accepts 32 bytes as hex or base64 and refuses anything else without echoing it', () => {
    const bytes = randomBytes(32);
    expect(loadConfig({ SECRET_KEY: bytes.toString('hex') }).secretKey).toEqual(bytes);
    expect(loadConfig({ SECRET_KEY: bytes.toString('base64') }).secretKey).toEqual(bytes);
    for (const bad of ['abc', randomBytes(31).toString('hex'), randomBytes(33).toString('base64')]) {
      try {
        loadConfig({ SECRET_KEY: bad });
        expect.unreachable('SECRET_KEY should be refused');
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).variable).toBe('SECRET_KEY');
        expect((error as Error).message).not.toContain(bad);
      }
    }
  });

  it('without SECRET_KEY a secret is generated once into DATA_DIR/secret.key (0600), path logged, value never', async () => {
    const log = captureLog();
    const first = loadServerSecret({ dataDir, databaseUrl: undefined }, log.logger);
    const second = loadServerSecret({ dataDir, databaseUrl: undefined }, log.logger);
    expect(second).toEqual(first);
    const file = join(dataDir, 'secret.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(log.text()).toContain(file);
    expect(log.text()).not.toContain(first.toString('hex'));
    const withPostgres = captureLog();
    loadServerSecret({ dataDir, databaseUrl: 'postgres://x@127.0.0.1/db' }, withPostgres.logger);
    expect(withPostgres.text()).toMatch(/every gateway instance must share one SECRET_KEY/);
  });

  it('ciphertexts open only with the same secret and purpose; MACs differ per purpose', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.encrypt('idempotency-replay', 'agw_ak_secret-answer');
    expect(sealed.includes(Buffer.from('secret-answer'))).toBe(false);
    expect(box.decrypt('idempotency-replay', sealed).toString()).toBe('agw_ak_secret-answer');
    expect(() => box.decrypt('mail-body', sealed)).toThrow();
    expect(() => new SecretBox(randomBytes(32)).decrypt('idempotency-replay', sealed)).toThrow(
      /another SECRET_KEY/,
    );
    expect(box.mac('otp-code', 'x').equals(box.mac('idempotency-fingerprint', 'x'))).toBe(false);
  });
});
