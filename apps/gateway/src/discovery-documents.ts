import {
  buildCapabilityCatalog,
  buildMcpManifest,
  buildMcpTools,
  buildOpenApiDocument,
  type CatalogSource,
} from '@agw/contracts';
import { renderLlmsTxt } from './llms-txt.js';
import { GATEWAY_VERSION } from './version.js';

/** The static discovery bodies, serialized once at start so requests only copy bytes. */
export interface DiscoveryDocuments {
  readonly llmsTxt: string;
  readonly capabilities: string;
  readonly mcpManifest: string;
  readonly mcpTools: string;
  readonly openapi: string;
}

/** What the discovery bodies describe besides the base URL. */
export interface DiscoveryOptions {
  /**
   * The capabilities this gateway runs: the same list search_capabilities, describe and invoke use,
   * so /capabilities never lists one that cannot run.
   */
  readonly capabilities: readonly CatalogSource[];
  /** The catalog snapshot time (the start time when omitted). */
  readonly generatedAt?: Date;
}

/** Builds every static discovery body for `baseUrl` (PUBLIC_BASE_URL). */
export function buildDiscoveryDocuments(baseUrl: string, options: DiscoveryOptions): DiscoveryDocuments {
  const generatedAt = (options.generatedAt ?? new Date()).toISOString();
  return {
    llmsTxt: renderLlmsTxt(baseUrl),
    capabilities: JSON.stringify(buildCapabilityCatalog({ capabilities: options.capabilities, generatedAt })),
    mcpManifest: JSON.stringify(buildMcpManifest({ baseUrl, version: GATEWAY_VERSION })),
    mcpTools: JSON.stringify(buildMcpTools()),
    openapi: JSON.stringify(buildOpenApiDocument({ serverUrl: baseUrl })),
  };
}
