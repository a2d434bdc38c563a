import {
  buildCapabilityCatalog,
  buildMcpManifest,
  buildMcpTools,
  buildOpenApiDocument,
  type CatalogSource,
} from '@agw/contracts';
import type { DomainRoute } from './domains/services.js';
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
  /** The domains' public routes; those with an `openapi` operation are added to /openapi.json. */
  readonly publicRoutes?: readonly DomainRoute[];
}

/** Builds every static discovery body for `baseUrl` (PUBLIC_BASE_URL). */
export function buildDiscoveryDocuments(baseUrl: string, options: DiscoveryOptions): DiscoveryDocuments {
  const generatedAt = (options.generatedAt ?? new Date()).toISOString();
  return {
    llmsTxt: renderLlmsTxt(baseUrl),
    capabilities: JSON.stringify(buildCapabilityCatalog({ capabilities: options.capabilities, generatedAt })),
    mcpManifest: JSON.stringify(buildMcpManifest({ baseUrl, version: GATEWAY_VERSION })),
    mcpTools: JSON.stringify(buildMcpTools()),
    openapi: JSON.stringify(
      withPublicRoutes(buildOpenApiDocument({ serverUrl: baseUrl }), options.publicRoutes),
    ),
  };
}

/** Adds each public route's operation under its path, `:name` parameters written `{name}`. */
function withPublicRoutes(
  document: Record<string, unknown>,
  routes: readonly DomainRoute[] = [],
): Record<string, unknown> {
  const paths = document.paths as Record<string, Record<string, unknown>>;
  for (const { domain, route } of routes) {
    if (!route.openapi) continue;
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      tags: [domain],
      ...route.openapi,
    };
  }
  return document;
}
