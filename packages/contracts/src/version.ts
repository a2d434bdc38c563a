/** Version of the gateway interface, reported as `interface_version` in catalog, search, invoke and dry-run bodies. */
export const INTERFACE_VERSION = '1.0' as const;

/** Version of the capability catalog's shape (`schema_version` of GET /capabilities). */
export const CATALOG_SCHEMA_VERSION = '2026-11-01' as const;

/** Base of every schema `$id`: `${SCHEMA_BASE_URI}/<SchemaName>`. */
export const SCHEMA_BASE_URI = 'https://agent-gateway.dev/schemas/v1' as const;

/** The `$id` of a named schema. */
export function schemaId(name: string): string {
  return `${SCHEMA_BASE_URI}/${name}`;
}
