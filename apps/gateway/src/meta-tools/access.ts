import { type CapabilityAccess, defaultInstallationScopes } from '@agw/contracts';
import { installationKeyGuard, type KeyStore } from '@agw/guard';
import { checkKey } from '../keys/authenticate.js';
import type { CatalogContract } from './catalog.js';

/** Who is searching or describing, as far as `access` is concerned. */
export interface CatalogCaller {
  /** `anonymous`: no Authorization header; `installation:<id>` for a keyed call. */
  readonly actor: string;
  /** The scopes `access` is computed against. */
  readonly scopes: ReadonlySet<string>;
}

// An anonymous caller sees what an approved installation with the default scopes could do.
const anonymousCaller: CatalogCaller = {
  actor: 'anonymous',
  scopes: new Set<string>(defaultInstallationScopes),
};

/** Resolves the caller of search_capabilities or describe from the Authorization header. */
export type CatalogCallerResolver = (authorization: string | undefined) => Promise<CatalogCaller>;

/**
 * The caller of search_capabilities or describe. No Authorization header → anonymous, with the default
 * installation scopes. A header that is present is authenticated like on every other agent endpoint
 * (an invalid, expired or revoked key is 401, a bootstrap key 403): a bad key never falls back to
 * anonymous. Keys are read through `keys`, the invoke chain's cached key store (src/keys/state-cache.ts:
 * only live keys are kept, every key change drops them on every instance before its response leaves),
 * so a keyed search does not read PostgreSQL on every request.
 */
export function createCatalogCallerResolver(keys: KeyStore): CatalogCallerResolver {
  const guard = installationKeyGuard({
    keys,
    clock: { now: () => new Date() },
    acceptKinds: ['installation'],
  });
  // A cached key record hands out the same scopes array until the cache drops it: one Set per record.
  const scopeSets = new WeakMap<readonly string[], ReadonlySet<string>>();
  return async (authorization) => {
    if (authorization === undefined) return anonymousCaller;
    const principal = await checkKey(guard, authorization);
    let scopes = scopeSets.get(principal.scopes);
    if (scopes === undefined) {
      scopes = new Set(principal.scopes);
      scopeSets.set(principal.scopes, scopes);
    }
    return { actor: `installation:${principal.installation_id}`, scopes };
  };
}

/**
 * Whether `scopes` may use `capability`, in the order the guard chain decides: a missing scope
 * (`scopes` guard) → `scope_missing`; otherwise a capability the `policy` guard always sends for
 * operator approval (risk `high`/`critical`, or marked `approval: 'always'`) → `approval_always`;
 * otherwise `allowed`.
 */
export function capabilityAccess(
  capability: Pick<CatalogContract, 'scopes' | 'risk_level' | 'approval'>,
  scopes: ReadonlySet<string>,
): CapabilityAccess {
  if (capability.scopes.some((scope) => !scopes.has(scope))) return 'scope_missing';
  if (
    capability.approval === 'always' ||
    capability.risk_level === 'high' ||
    capability.risk_level === 'critical'
  ) {
    return 'approval_always';
  }
  return 'allowed';
}
