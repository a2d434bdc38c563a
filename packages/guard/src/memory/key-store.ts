import { randomUUID } from 'node:crypto';
import { generateApiKey } from '../keys.js';
import type { KeyRecord, KeyStore } from '../ports.js';

/** What {@link MemoryKeyStore.issue} needs to create a key. */
export interface IssueKeyInput {
  readonly installation_id: string;
  readonly organization_id: string;
  readonly scopes: readonly string[];
  readonly kind?: KeyRecord['kind'];
  readonly expires_at?: string | null;
}

/** An in-memory {@link KeyStore} that can issue and revoke keys. */
export interface MemoryKeyStore extends KeyStore {
  /** Generates a key, stores its prefix and hash, and returns the plaintext token once. */
  issue(input: IssueKeyInput): { readonly token: string; readonly record: KeyRecord };
  revoke(keyId: string, at: string): void;
  records(): readonly KeyRecord[];
}

/** Creates an in-memory key store. */
export function createMemoryKeyStore(): MemoryKeyStore {
  const byPrefix = new Map<string, KeyRecord>();
  return {
    findByPrefix: (prefix) => byPrefix.get(prefix),
    issue(input) {
      const generated = generateApiKey();
      const record: KeyRecord = {
        key_id: randomUUID(),
        prefix: generated.prefix,
        hash: generated.hash,
        kind: input.kind ?? 'installation',
        installation_id: input.installation_id,
        organization_id: input.organization_id,
        scopes: [...input.scopes],
        expires_at: input.expires_at ?? null,
        revoked_at: null,
      };
      byPrefix.set(record.prefix, record);
      return { token: generated.token, record };
    },
    revoke(keyId, at) {
      for (const [prefix, record] of byPrefix) {
        if (record.key_id === keyId) byPrefix.set(prefix, { ...record, revoked_at: at });
      }
    },
    records: () => [...byPrefix.values()],
  };
}
