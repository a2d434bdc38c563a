import { toCatalogMetaTool } from './catalog.js';
import { toPlainJsonSchema } from './json-schema.js';
import { metaTools } from './meta-tool-definitions.js';
import type { McpManifest, McpTools } from './schemas/discovery.js';
import { INTERFACE_VERSION } from './version.js';

/** Options of `buildMcpManifest`. */
export interface BuildMcpManifestOptions {
  /** Absolute public base address, reported as `base_url`; endpoints stay relative to it. */
  baseUrl?: string;
  /** Gateway release version; defaults to the interface version. */
  version?: string;
}

/** Body of GET /mcp/manifest. */
export function buildMcpManifest(options: BuildMcpManifestOptions = {}): McpManifest {
  const manifest: McpManifest = {
    name: 'agent-gateway',
    version: options.version ?? INTERFACE_VERSION,
    interface_version: INTERFACE_VERSION,
    description:
      'Agent Gateway: onboard into an organization, then discover and run versioned business capabilities ' +
      'through four meta-tools (search_capabilities, describe, dry_run, invoke). Start with GET /llms.txt.',
    meta_tools: metaTools.map((tool) => ({ name: tool.name, ...toCatalogMetaTool(tool) })),
    resources: {
      catalog: '/capabilities',
      openapi: '/openapi.json',
      llms: '/llms.txt',
      health: '/health',
      tools: '/mcp/tools',
    },
    transport: {
      http: {
        search_capabilities: '/mcp/search_capabilities',
        describe: '/mcp/describe',
        dry_run: '/mcp/dry_run',
        invoke: '/mcp/invoke',
      },
      streamable_http: '/mcp',
    },
    authentication: { scheme: 'bearer', key_format: 'agw_ak_<prefix>.<secret>' },
  };
  if (options.baseUrl !== undefined) manifest.base_url = options.baseUrl;
  return manifest;
}

/** Body of GET /mcp/tools: each meta-tool's name, description, input schema and authentication. */
export function buildMcpTools(): McpTools {
  return {
    tools: metaTools.map((tool) => ({
      name: tool.name,
      description: tool.summary,
      input_schema: toPlainJsonSchema(tool.input_schema),
      authentication: tool.authentication,
    })),
  };
}
