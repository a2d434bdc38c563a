import { buildMcpTools, metaTools, schemas, toPlainJsonSchema } from '@agw/contracts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

// What an MCP client may assume about each meta-tool (hints only; the guard chain decides).
const annotations: Readonly<Record<string, Tool['annotations']>> = {
  search_capabilities: { title: 'Search capabilities', readOnlyHint: true, openWorldHint: false },
  describe: { title: 'Describe a capability', readOnlyHint: true, openWorldHint: false },
  dry_run: { title: 'Dry-run a capability', readOnlyHint: true, openWorldHint: false },
  // A capability may change state (mutations need an idempotency_key, so a retry is safe).
  invoke: { title: 'Invoke a capability', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
};

const errorEnvelopeSchema = toPlainJsonSchema(schemas.ErrorEnvelope);

/**
 * The four meta-tools as MCP tools, from the one source /mcp/tools and OpenAPI use: name, description
 * and input schema of `buildMcpTools()`. `outputSchema` is the response object or, for a tool error,
 * the error envelope: clients (the official SDK among them) validate any structured content against
 * it, refusals included.
 */
export const mcpTools: readonly (Tool & { readonly authentication: 'optional' | 'required' })[] =
  buildMcpTools().tools.map((tool) => {
    const definition = metaTools.find((candidate) => candidate.name === tool.name);
    if (!definition) throw new Error(`meta-tool ${tool.name} has no definition`);
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.input_schema as Tool['inputSchema'],
      outputSchema: {
        type: 'object',
        anyOf: [toPlainJsonSchema(definition.output_schema), errorEnvelopeSchema],
      } as Tool['outputSchema'],
      annotations: annotations[tool.name],
      authentication: tool.authentication,
    };
  });

/**
 * The tools a caller can call: every one with a key; without one, only those whose authentication is
 * optional (search_capabilities, describe). A hidden tool called anyway is answered like over HTTP.
 */
export function visibleTools(authenticated: boolean): Tool[] {
  return mcpTools
    .filter((tool) => authenticated || tool.authentication === 'optional')
    .map(({ authentication: _authentication, ...tool }) => tool);
}
