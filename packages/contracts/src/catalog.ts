import { capabilityContracts } from './capabilities/index.js';
import type { CapabilityContract } from './capabilities/types.js';
import { type MetaToolDefinition, metaTools } from './meta-tool-definitions.js';
import type { CapabilityCatalog, CatalogCapability, CatalogMetaTool } from './schemas/discovery.js';
import { CATALOG_SCHEMA_VERSION, INTERFACE_VERSION } from './version.js';

/**
 * What the catalog lists of a capability version: a contract without its schemas, with any
 * `MAJOR.MINOR.PATCH` version (a gateway may run versions this package does not define).
 */
export type CatalogSource = Omit<CapabilityContract, 'version' | 'input_schema' | 'output_schema'> & {
  readonly version: string;
};

/** Options of `buildCapabilityCatalog`. */
export interface BuildCapabilityCatalogOptions {
  /** The capabilities the gateway runs; defaults to every contract of this package. */
  capabilities?: readonly CatalogSource[];
  /** ISO 8601 timestamp of the snapshot (passed in so the body is deterministic). */
  generatedAt: string;
}

/** 32-bit FNV-1a of a string as 8 hex digits: a stable, dependency-free digest (not a security hash). */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** Code-point order, independent of the runtime's locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The public catalog view of one contract (no schemas: describe returns those). */
export function toCatalogCapability(contract: CatalogSource): CatalogCapability {
  return {
    id: contract.id,
    version: contract.version,
    summary: contract.summary,
    domain: contract.domain,
    tags: [...contract.tags],
    risk_level: contract.risk_level,
    scopes: [...contract.scopes],
    cost_credits: contract.cost_credits,
    mutating: contract.mutating,
    dry_run: contract.dry_run,
  };
}

/** How a meta-tool is called, as the catalog and the manifest list it (no schemas: /mcp/tools has those). */
export function toCatalogMetaTool(tool: MetaToolDefinition): CatalogMetaTool {
  return { method: tool.method, path: tool.path, summary: tool.summary, authentication: tool.authentication };
}

/** The catalog's `meta_tools` map, keyed by meta-tool name. */
export function catalogMetaTools(): NonNullable<CapabilityCatalog['meta_tools']> {
  const entries = metaTools.map((tool): [string, CatalogMetaTool] => [tool.name, toCatalogMetaTool(tool)]);
  return Object.fromEntries(entries) as NonNullable<CapabilityCatalog['meta_tools']>;
}

/** Builds the GET /capabilities body, sorted by id then version. */
export function buildCapabilityCatalog(options: BuildCapabilityCatalogOptions): CapabilityCatalog {
  const contracts = [...(options.capabilities ?? capabilityContracts)].sort(
    (a, b) => compareText(a.id, b.id) || compareText(a.version, b.version),
  );
  const byDomain: Record<string, number> = {};
  const byRiskLevel = { low: 0, medium: 0, high: 0, critical: 0 };
  for (const contract of contracts) {
    byDomain[contract.domain] = (byDomain[contract.domain] ?? 0) + 1;
    byRiskLevel[contract.risk_level] += 1;
  }
  return {
    schema_version: CATALOG_SCHEMA_VERSION,
    interface_version: INTERFACE_VERSION,
    snapshot: {
      generated_at: options.generatedAt,
      capability_count: contracts.length,
      digest: fnv1a32(contracts.map((c) => `${c.id}@${c.version}`).join('\n')),
    },
    totals: { capabilities: contracts.length, by_domain: byDomain, by_risk_level: byRiskLevel },
    meta_tools: catalogMetaTools(),
    capabilities: contracts.map(toCatalogCapability),
  };
}
