import type { TSchema } from '@sinclair/typebox';
import type { CapabilityContract } from './capabilities/types.js';
import { toCatalogCapability } from './catalog.js';
import { toPlainJsonSchema } from './json-schema.js';
import type { CapabilityDescription, SearchResultItem } from './schemas/meta-tools.js';
import { INTERFACE_VERSION } from './version.js';

/** How a caller may use a capability: the `access` of search results and describe. */
export type CapabilityAccess = SearchResultItem['access'];

/** Options of `buildCapabilityDescription`. */
export interface BuildCapabilityDescriptionOptions {
  /** Present for keyed calls: whether the key may use the capability. */
  access?: CapabilityAccess;
  /** Every version of this id the gateway serves; defaults to the contract's own. */
  availableVersions?: readonly string[];
  status?: CapabilityDescription['status'];
}

/** The describe answer for one contract: metadata plus self-contained input and output JSON Schemas. */
export function buildCapabilityDescription(
  contract: CapabilityContract,
  options: BuildCapabilityDescriptionOptions = {},
): CapabilityDescription {
  const description: CapabilityDescription = {
    interface_version: INTERFACE_VERSION,
    ...toCatalogCapability(contract),
    status: options.status ?? 'active',
    available_versions: [...(options.availableVersions ?? [contract.version])],
    idempotency_key_required: contract.mutating,
    ...operationsOf(contract),
    long_running: contract.long_running ?? false,
    input_schema: toPlainJsonSchema(contract.input_schema),
    output_schema: toPlainJsonSchema(contract.output_schema),
  };
  if (options.access !== undefined) description.access = options.access;
  return description;
}

/**
 * Which `params.operation` values of a mutating capability only read and which change state: present
 * when the contract declares `read_operations` (a `*.manage` capability's list or get).
 */
function operationsOf(
  contract: CapabilityContract,
): Pick<CapabilityDescription, 'read_operations' | 'mutating_operations'> {
  const reads = contract.read_operations;
  if (!contract.mutating || reads === undefined) return {};
  const operation = (contract.input_schema.properties as Record<string, TSchema> | undefined)?.operation;
  const values = ((operation?.anyOf ?? []) as TSchema[]).map((member) => String(member.const));
  return {
    read_operations: [...reads],
    mutating_operations: values.filter((value) => !reads.includes(value)),
  };
}

/** The search_capabilities hit for one contract. */
export function toSearchResultItem(contract: CapabilityContract, access: CapabilityAccess): SearchResultItem {
  return {
    id: contract.id,
    version: contract.version,
    summary: contract.summary,
    domain: contract.domain,
    risk_level: contract.risk_level,
    access,
  };
}
