import { findMetaTool } from '@agw/contracts';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Knex } from 'knex';
import type { MetaToolHandlers } from '../routes/meta-tools.js';
import { GATEWAY_VERSION } from '../version.js';
import type { ToolArgumentsLookup } from './raw-arguments.js';
import { callMetaTool, type McpHttpFacts } from './tool-call.js';
import { visibleTools } from './tools.js';

const INSTRUCTIONS =
  'Agent Gateway runs versioned business capabilities. Find one with search_capabilities, read its ' +
  'contract with describe, check params with dry_run, then run it with invoke (a mutating capability ' +
  'needs an idempotency_key). dry_run and invoke need Authorization: Bearer <installation key>. ' +
  'A refusal is a tool error whose structured content is the error envelope: follow its hint.';

/** The `_meta` key of a tools/call that carries an invoke's price quote (src/meta-tools/quote.ts). */
const QUOTE_META_KEY = 'agw/quote';

/** What one MCP request's server needs. */
export interface McpServerOptions {
  readonly knex: Knex;
  readonly metaTools: MetaToolHandlers;
  /** The request it serves (headers, address, request id, logger). */
  readonly http: McpHttpFacts;
  /** Whether the request carried a valid installation key (it sees every tool). */
  readonly authenticated: boolean;
  /** Called with the error code of each refused tool call. */
  readonly onRefusal: (code: string) => void;
  /** The tools/call arguments as JSON.parse read them (src/mcp/raw-arguments.ts); else the SDK's. */
  readonly toolArguments?: ToolArgumentsLookup;
}

/**
 * An MCP server for one HTTP request (stateless: nothing outlives the request, so any gateway
 * instance serves any request). The low-level `Server` is used so the tools' schemas are the
 * contracts' JSON Schemas as they are; it answers initialize and ping itself.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: 'agent-gateway', title: 'Agent Gateway', version: GATEWAY_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: visibleTools(options.authenticated) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    // The arguments as JSON.parse read them, not the SDK's copy (which drops a `__proto__` member).
    const raw = options.toolArguments?.(extra.requestId);
    const args = raw?.found === true ? raw.value : request.params.arguments;
    const tool = findMetaTool(name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${name}. Tools: search_capabilities, describe, dry_run, invoke.`,
      );
    }
    // An invoke's price quote rides in the request's metadata, beside the spec's closed arguments.
    const quote = request.params._meta?.[QUOTE_META_KEY];
    const outcome = await callMetaTool(
      options.knex,
      tool.name,
      options.metaTools[tool.name],
      args,
      options.http,
      typeof quote === 'string' ? quote : undefined,
    );
    if (outcome.errorCode !== undefined) options.onRefusal(outcome.errorCode);
    return outcome.result;
  });
  return server;
}
