import type { TSchema } from '@sinclair/typebox';
import {
  CapabilityDescription,
  DescribeRequest,
  DryRunRequest,
  DryRunResponse,
  InvokeRequest,
  InvokeResponse,
  SearchCapabilitiesRequest,
  SearchCapabilitiesResponse,
} from './schemas/meta-tools.js';

/** One of the four meta-tools under /mcp/*. */
export interface MetaToolDefinition {
  readonly name: 'search_capabilities' | 'describe' | 'dry_run' | 'invoke';
  readonly path: `/mcp/${string}`;
  readonly method: 'POST';
  readonly summary: string;
  /** `optional`: anonymous calls are answered too (search_capabilities, describe). */
  readonly authentication: 'optional' | 'required';
  readonly input_schema: TSchema;
  readonly output_schema: TSchema;
}

/** The four meta-tools, in the order an agent uses them. */
export const metaTools: readonly MetaToolDefinition[] = Object.freeze([
  {
    name: 'search_capabilities',
    path: '/mcp/search_capabilities',
    method: 'POST',
    summary:
      'Find capabilities by free text, domain and maximum risk level; shows whether your key may use each.',
    authentication: 'optional',
    input_schema: SearchCapabilitiesRequest,
    output_schema: SearchCapabilitiesResponse,
  },
  {
    name: 'describe',
    path: '/mcp/describe',
    method: 'POST',
    summary:
      'Read the full contract of one capability: input and output schema, scopes, risk, cost, dry-run mode.',
    authentication: 'optional',
    input_schema: DescribeRequest,
    output_schema: CapabilityDescription,
  },
  {
    name: 'dry_run',
    path: '/mcp/dry_run',
    method: 'POST',
    summary:
      'Validate params and simulate a capability without state changes; reports estimated cost and approval.',
    authentication: 'required',
    input_schema: DryRunRequest,
    output_schema: DryRunResponse,
  },
  {
    name: 'invoke',
    path: '/mcp/invoke',
    method: 'POST',
    summary: 'Run a capability through the guard chain; mutations need an idempotency_key.',
    authentication: 'required',
    input_schema: InvokeRequest,
    output_schema: InvokeResponse,
  },
] as const);

/** The meta-tool called `name`. */
export function findMetaTool(name: string): MetaToolDefinition | undefined {
  return metaTools.find((tool) => tool.name === name);
}
