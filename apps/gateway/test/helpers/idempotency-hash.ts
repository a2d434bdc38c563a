import { hashIdempotencyKey, loadServerSecret, SecretBox } from '@agw/gateway';

/**
 * The `idem_key` a gateway under `dataDir` stores for a client's key: its keyed hash under the
 * gateway's generated secret (the test environments set no SECRET_KEY).
 */
export function storedKeyFor(dataDir: string, key: string): string {
  return hashIdempotencyKey(new SecretBox(loadServerSecret({ dataDir, databaseUrl: undefined })), key);
}
