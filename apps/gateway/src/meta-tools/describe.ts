import {
  buildCapabilityDescription,
  type CapabilityDescription,
  compareText,
  type DescribeRequest,
} from '@agw/contracts';
import { GatewayError } from '../http/gateway-error.js';
import { capabilityAccess } from './access.js';
import {
  asCapabilityContract,
  type CatalogContract,
  type CatalogVersions,
  defaultVersion,
} from './catalog.js';

/** How many closest ids a `capability_not_found` hint names. */
export const NEAREST_ID_COUNT = 3;

/**
 * The version a describe (or dry_run/invoke) request means: exactly `version` when given (no ranges,
 * no partial versions); when omitted, the highest semver precedence among non-deprecated versions
 * (the highest deprecated one only when every version is deprecated). An unknown id is 404
 * `capability_not_found` naming the closest ids; an unknown version of a known id is 404
 * `capability_not_found` listing the versions that exist.
 */
export function resolveCapability(catalog: CatalogVersions, id: string, version?: string): CatalogContract {
  const versions = catalog.byId.get(id);
  if (!versions) {
    const nearest = nearestIds(catalog.ids, id);
    throw new GatewayError('capability_not_found', {
      message: `No capability has the id ${id}.`,
      hint:
        nearest.length > 0
          ? `Closest ids: ${nearest.join(', ')}. Use search_capabilities to find others.`
          : 'Use search_capabilities to find capability ids.',
      details: nearest.map((closest) => ({ closest_id: closest })),
    });
  }
  if (version === undefined) return defaultVersion(versions);
  const exact = versions.find((contract) => contract.version === version);
  if (exact) return exact;
  const available = versions.map((contract) => contract.version);
  throw new GatewayError('capability_not_found', {
    message: `${id} has no version ${version}.`,
    schemaPointer: '/version',
    hint: `Available versions of ${id}: ${available.join(', ')}. Omit version for the latest.`,
    details: [{ id, available_versions: available }],
  });
}

/**
 * The describe answer: the resolved contract with its schemas, every version of its id (lowest
 * first), its status and the caller's `access`.
 */
export function describeCapability(
  catalog: CatalogVersions,
  request: DescribeRequest,
  scopes: ReadonlySet<string>,
): CapabilityDescription {
  const contract = resolveCapability(catalog, request.id, request.version);
  const versions = catalog.byId.get(contract.id) ?? [contract];
  return buildCapabilityDescription(asCapabilityContract(contract), {
    access: capabilityAccess(contract, scopes),
    availableVersions: versions.map((known) => known.version),
    status: contract.status ?? 'active',
  });
}

/**
 * Up to `count` ids closest to `wanted`: most `.`-segments in common first (a right domain and noun
 * with a wrong verb), then the smallest edit distance (typos), then id order.
 */
export function nearestIds(ids: readonly string[], wanted: string, count = NEAREST_ID_COUNT): string[] {
  const wantedSegments = new Set(wanted.split('.'));
  return ids
    .map((id) => ({
      id,
      shared: id.split('.').filter((segment) => wantedSegments.has(segment)).length,
      distance: levenshtein(wanted, id),
    }))
    .sort((a, b) => b.shared - a.shared || a.distance - b.distance || compareText(a.id, b.id))
    .slice(0, count)
    .map((candidate) => candidate.id);
}

/** Edit distance (insertions, deletions, substitutions) with two rolling rows. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}
