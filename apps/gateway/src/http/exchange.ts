import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayState } from './state.js';

/**
 * The part of a Koa context the meta-tool handlers (search, describe, dry_run, invoke and the
 * idempotent runner under them) read and write. A Koa context satisfies it; the MCP endpoint supplies
 * its own (src/mcp/exchange.ts), so both transports run exactly the same handler code. Widen it only
 * with members the MCP exchange implements too (the compiler checks both sides).
 */
export interface MetaToolContext {
  readonly headers: IncomingHttpHeaders;
  readonly ip: string;
  readonly method: string;
  state: GatewayState;
  status: number;
  type: string;
  body: unknown;
  set(field: string, value: string): void;
  readonly response: { get(field: string): string };
}
