import { GuardConfigError } from '../errors.js';
import { deny, type Guard, pass } from '../guard.js';
import { parseApiKey, verifySecret } from '../keys.js';
import type { Clock, KeyRecord, KeyStore } from '../ports.js';

/** Options of {@link installationKeyGuard}. */
export interface InstallationKeyGuardOptions {
  readonly keys: KeyStore;
  readonly clock: Clock;
  /** Key kinds accepted here. Default `['installation']`: bootstrap keys work only for /organizations. */
  readonly acceptKinds?: readonly KeyRecord['kind'][];
}

// One message for every failure before possession is proven, so a caller learns nothing about
// whether a prefix exists (security rules 2.2.5).
const invalidKeyMessage = 'The API key is malformed, unknown or wrong.';

/**
 * `installation_key`: parses the bearer key strictly, looks it up by prefix, compares the secret's
 * hash in constant time, then checks expiry, revocation and kind. Adds `principal` to the facts.
 * Denies 401 `unauthenticated` (no key), 401 `invalid_api_key` (malformed, bad checksum, unknown,
 * wrong), 401 `api_key_expired` / `api_key_revoked` (only after the hash matched), 403 `forbidden`
 * (a key kind not accepted here, e.g. a bootstrap key on invoke).
 */
export function installationKeyGuard(options: InstallationKeyGuardOptions): Guard {
  if (typeof options?.keys?.findByPrefix !== 'function') {
    throw new GuardConfigError('installationKeyGuard needs keys: KeyStore.');
  }
  if (typeof options.clock?.now !== 'function')
    throw new GuardConfigError('installationKeyGuard needs a clock.');
  const acceptKinds = options.acceptKinds ?? ['installation'];
  if (
    acceptKinds.length === 0 ||
    acceptKinds.some((kind) => kind !== 'bootstrap' && kind !== 'installation')
  ) {
    throw new GuardConfigError('acceptKinds must list bootstrap and/or installation.');
  }
  const { keys, clock } = options;

  return {
    name: 'installation_key',
    async check({ request }) {
      const token = bearerToken(request.authorization);
      if (token === undefined) {
        return deny('unauthenticated', 'Send Authorization: Bearer <installation key>.');
      }
      const parsed = parseApiKey(token);
      if (parsed === undefined) return deny('invalid_api_key', invalidKeyMessage);
      const record = await keys.findByPrefix(parsed.prefix);
      // verifySecret compares against a dummy digest when the prefix is unknown: same work either way.
      if (!verifySecret(parsed.secret, record?.hash) || record === undefined) {
        return deny('invalid_api_key', invalidKeyMessage);
      }
      if (record.revoked_at !== null) {
        // A revoked bootstrap key was consumed by POST /organizations: rotating is no way out for it
        // (the table's hint names /keys/rotate), the installation key from that answer is.
        return record.kind === 'bootstrap'
          ? deny('api_key_revoked', 'This bootstrap key was already used by POST /organizations.', {
              hint: 'A bootstrap key works once: use the installation key returned by POST /organizations. A lost installation key cannot be recovered; ask the gateway operator.',
            })
          : deny('api_key_revoked', 'This API key was revoked.');
      }
      if (record.expires_at !== null && Date.parse(record.expires_at) <= clock.now().getTime()) {
        return deny('api_key_expired', 'This API key has expired.');
      }
      if (!acceptKinds.includes(record.kind)) {
        const hint =
          record.kind === 'bootstrap' ? 'A bootstrap key is valid only for POST /organizations.' : undefined;
        return deny(
          'forbidden',
          `${record.kind === 'installation' ? 'An' : 'A'} ${record.kind} key cannot be used here.`,
          hint === undefined ? {} : { hint },
        );
      }
      return pass({
        principal: {
          key_id: record.key_id,
          key_prefix: record.prefix,
          kind: record.kind,
          installation_id: record.installation_id,
          organization_id: record.organization_id,
          scopes: record.scopes,
        },
      });
    },
  };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), else undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}
