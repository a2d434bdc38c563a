import { type CapabilityAccess, defaultInstallationScopes } from '@agw/contracts';
import { type GuardCapability, installationKeyGuard, type KeyStore } from '@agw/guard';
import type { Knex } from 'knex';
import { GatewayError } from '../http/gateway-error.js';
import { authenticateKey } from '../keys/authenticate.js';
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

/**
 * The caller of search_capabilities or describe. No Authorization header → anonymous, with the default
 * installation scopes. A header that is present is authenticated like on every other agent endpoint
 * (an invalid, expired or revoked key is 401, a bootstrap key 403): a bad key never falls back to
 * anonymous.
 */
export async function resolveCatalogCaller(
  knex: Knex,
  authorization: string | undefined,
): Promise<CatalogCaller> {
  if (authorization === undefined) return anonymousCaller;
  const { row } = await authenticateKey(knex, authorization, { kind: 'installation' });
  return { actor: `installation:${row.installation_id ?? ''}`, scopes: new Set(row.scopes) };
}

/** Resolves the caller of search_capabilities or describe from the Authorization header. */
export type CatalogCallerResolver = (authorization: string | undefined) => Promise<CatalogCaller>;

/**
 * {@link resolveCatalogCaller} over `keys`, the invoke chain's cached key store (src/keys/state-cache.ts:
 * only live keys are kept, every key or installation change drops them on every instance before its
 * response leaves, a 10 s TTL bounds a lost message), so a keyed search does not read PostgreSQL on
 * every request. The same `installation_key` guard decides, so errors are the same as without a cache.
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
    const decision = await guard.check({
      request: { authorization, capability: catalogCapability, params: undefined },
      facts: {},
      mode: 'invoke',
      trace: [],
    });
    if (decision.outcome === 'deny') {
      throw new GatewayError(decision.code, {
        message: decision.message,
        ...(decision.hint === undefined ? {} : { hint: decision.hint }),
      });
    }
    const principal = decision.outcome === 'pass' ? decision.facts?.principal : undefined;
    if (principal === undefined) throw new Error('installation_key guard did not decide');
    let scopes = scopeSets.get(principal.scopes);
    if (scopes === undefined) {
      scopes = new Set(principal.scopes);
      scopeSets.set(principal.scopes, scopes);
    }
    return { actor: `installation:${principal.installation_id}`, scopes };
  };
}

// The guard checks a capability; search and describe are not one, so they pass a neutral one.
const catalogCapability: GuardCapability = {
  id: 'catalog',
  version: '1.0.0',
  risk_level: 'low',
  scopes: [],
  cost_credits: '0',
  mutating: false,
  input_schema: {},
};

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
