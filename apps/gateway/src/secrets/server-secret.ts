import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayConfig } from '../config.js';
import type { Logger } from '../logger.js';

/** File name of the generated server secret under DATA_DIR. */
export const SECRET_FILE_NAME = 'secret.key';

/**
 * The 32-byte server secret: SECRET_KEY when set; otherwise DATA_DIR/secret.key, generated once
 * (mode 0600, hex). Only the file's path is ever logged. With DATABASE_URL every instance must share
 * the secret (idempotency fingerprints, OTP MACs and encrypted replays depend on it), so a local secret
 * file is reported as a warning at every start.
 */
export function loadServerSecret(
  config: Pick<GatewayConfig, 'secretKey' | 'dataDir' | 'databaseUrl'>,
  logger?: Logger,
): Buffer {
  if (config.secretKey) return config.secretKey;
  const path = join(config.dataDir, SECRET_FILE_NAME);
  if (config.databaseUrl) {
    logger?.warn(
      { path },
      'SECRET_KEY is unset with DATABASE_URL: using a local secret file; every gateway instance must share one SECRET_KEY',
    );
  }
  const existing = readSecretFile(path);
  if (existing) return existing;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32);
  try {
    // `wx`: never overwrite a secret another process wrote first; read theirs instead.
    writeFileSync(path, `${secret.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
  } catch (error) {
    const raced = readSecretFile(path);
    if (raced) return raced;
    throw error;
  }
  logger?.info({ path }, 'generated the server secret (SECRET_KEY unset)');
  return secret;
}

function readSecretFile(path: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
  if (!/^[0-9a-f]{64}$/.test(text)) {
    throw new Error(`${path} does not hold a 64-character hex secret; remove it to generate a new one`);
  }
  return Buffer.from(text, 'hex');
}
