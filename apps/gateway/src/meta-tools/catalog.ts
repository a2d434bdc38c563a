import { createHash } from 'node:crypto';
import { type CapabilityContract, compareText } from '@agw/contracts';

/**
 * A capability version as the meta-tools list it: a contracts `CapabilityContract`, optionally marked
 * deprecated (an omitted version never resolves to a deprecated one while another exists) and, like the
 * guard's `GuardCapability`, optionally marked as needing an operator approval on every run.
 */
export interface CatalogContract extends Omit<CapabilityContract, 'version'> {
  /** `MAJOR.MINOR.PATCH`. */
  readonly version: string;
  /** `active` when omitted. */
  readonly status?: 'active' | 'deprecated';
  /** `always`: every run needs an operator approval; `by_risk` (default): only `high`/`critical`. */
  readonly approval?: 'always' | 'by_risk';
}

/** Every version of every capability id, resolved once at start. */
export interface CatalogVersions {
  /** Distinct ids in code-point order. */
  readonly ids: readonly string[];
  /** The versions of each id, lowest precedence first. */
  readonly byId: ReadonlyMap<string, readonly CatalogContract[]>;
  /** The version an omitted `version` resolves to, per id (see {@link defaultVersion}). */
  readonly defaults: readonly CatalogContract[];
}

/**
 * Semantic-version precedence of two `MAJOR.MINOR.PATCH` strings (negative when `a` is lower).
 * Capability versions carry no pre-release or build part (contracts `CAPABILITY_VERSION_PATTERN`).
 */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < 3; i += 1) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * The version an omitted `version` resolves to: the highest semver precedence among the versions that
 * are not deprecated; when every version is deprecated, the highest of them.
 * `versions` must be sorted lowest first and non-empty.
 */
export function defaultVersion(versions: readonly CatalogContract[]): CatalogContract {
  const active = versions.filter((contract) => contract.status !== 'deprecated');
  const pool = active.length > 0 ? active : versions;
  const latest = pool.at(-1);
  if (!latest) throw new Error('a capability id without versions');
  return latest;
}

/** Groups a catalog by id (duplicate id@version pairs are a programming error and throw). */
export function groupVersions(catalog: readonly CatalogContract[]): CatalogVersions {
  const grouped = new Map<string, CatalogContract[]>();
  for (const contract of catalog) {
    const versions = grouped.get(contract.id) ?? [];
    if (versions.some((known) => known.version === contract.version)) {
      throw new Error(`the catalog lists ${contract.id}@${contract.version} twice`);
    }
    versions.push(contract);
    grouped.set(contract.id, versions);
  }
  const ids = [...grouped.keys()].sort(compareText);
  const byId = new Map<string, readonly CatalogContract[]>();
  for (const id of ids) {
    byId.set(
      id,
      [...(grouped.get(id) ?? [])].sort((a, b) => compareVersions(a.version, b.version)),
    );
  }
  return { ids, byId, defaults: ids.map((id) => defaultVersion(byId.get(id) ?? [])) };
}

/**
 * A digest of everything that decides which capabilities a search finds and in which order (id,
 * version, summary, domain, tags, risk level, status). A cursor carries it, so a cursor from another
 * catalog snapshot is recognised instead of silently skipping or repeating results.
 */
export function catalogDigest(capabilities: readonly CatalogContract[]): string {
  const rows = capabilities
    .map((c) => [c.id, c.version, c.summary, c.domain, [...c.tags], c.risk_level, c.status ?? 'active'])
    .sort((a, b) => compareText(`${a[0]}@${a[1]}`, `${b[0]}@${b[1]}`));
  return createHash('sha256').update(JSON.stringify(rows)).digest('base64url').slice(0, 16);
}

/**
 * The contracts builders (`buildCapabilityDescription`, `toSearchResultItem`) type `version` as the
 * literal `1.0.0` every shipped contract has today; they only copy it, so any `MAJOR.MINOR.PATCH` fits.
 */
export function asCapabilityContract(contract: CatalogContract): CapabilityContract {
  return contract as CapabilityContract;
}
