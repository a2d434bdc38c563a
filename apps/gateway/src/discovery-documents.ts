import {
  buildCapabilityCatalog,
  buildMcpManifest,
  buildMcpTools,
  buildOpenApiDocument,
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

/**
 * Builds every static discovery body for `baseUrl` (PUBLIC_BASE_URL). The catalog snapshot is taken
 * at `generatedAt` (the start time).
 */
export function buildDiscoveryDocuments(baseUrl: string, generatedAt: Date = new Date()): DiscoveryDocuments {
  return {
    llmsTxt: renderLlmsTxt(baseUrl),
    capabilities: JSON.stringify(buildCapabilityCatalog({ generatedAt: generatedAt.toISOString() })),
    mcpManifest: JSON.stringify(buildMcpManifest({ baseUrl, version: GATEWAY_VERSION })),
    mcpTools: JSON.stringify(buildMcpTools()),
    openapi: JSON.stringify(buildOpenApiDocument({ serverUrl: baseUrl })),
  };
}
