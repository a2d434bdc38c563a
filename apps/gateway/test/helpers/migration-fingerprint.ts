import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { capabilityMigrations } from '@agw/capabilities';

const gatewayDb = new URL('../../src/db/', import.meta.url);
const gatewayMigrations = new URL('migrations/', gatewayDb);

/**
 * A hash of everything the gateway's migrations run: the domains' statements, the gateway's own
 * migration files and their runner. A template database migrated once is reused while this is the
 * same, and a new one is built as soon as a migration is added or an unpublished one edited.
 */
export function migrationFingerprint(): string {
  fingerprint ??= hashMigrations();
  return fingerprint;
}

let fingerprint: string | undefined;

function hashMigrations(): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(new URL('migrate.ts', gatewayDb)));
  for (const file of readdirSync(gatewayMigrations).sort()) {
    hash.update(file).update(readFileSync(new URL(file, gatewayMigrations)));
  }
  for (const migration of capabilityMigrations) {
    hash.update(migration.name).update(migration.up.join('\n'));
  }
  return hash.digest('hex').slice(0, 16);
}
