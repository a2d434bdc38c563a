import { type CapabilityAccess, defaultInstallationScopes } from '@agw/contracts';
import type { Knex } from 'knex';
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
