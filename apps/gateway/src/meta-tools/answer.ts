import type { IncomingHttpHeaders } from 'node:http';
import type { AuditTransport } from '../audit.js';
import { renderError } from '../http/error-envelope.js';
import type { GatewayError } from '../http/gateway-error.js';
import type { Logger } from '../logger.js';

/**
 * One meta-tool call, whichever transport it came by (POST /mcp/<tool> or a tools/call on /mcp): the
 * arguments, validated by the tool itself (one validation for both), and what the guards and the audit
 * need to know about the caller.
 */
export interface MetaToolRequest {
  /** The HTTP body, or the MCP tool arguments: not yet validated. */
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
  readonly ip: string;
  readonly requestId: string;
  /** The audit id of this call: the envelope's `audit_id` when nothing else recorded it. */
  readonly auditId: string;
  readonly log: Logger;
  /** How the call arrived: its audit rows say so. */
  readonly transport: AuditTransport;
  /**
   * The price quote an invoke is given out of band (the spec closes its body): the `Agw-Quote` header
   * over HTTP, `params._meta["agw/quote"]` of an MCP tools/call (src/meta-tools/quote.ts).
   */
  readonly quote?: string;
}

/** A meta-tool's answer, for the transport to send: an HTTP response or an MCP tool result. */
export interface MetaToolAnswer {
  readonly status: number;
  /** A JSON object, or its JSON text or bytes (a stored or pre-serialized answer, never parsed again). */
  readonly body: object | string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** The spec error code of an error answer (for the request log and the MCP 401 challenge). */
  readonly errorCode?: string;
}

/** A meta-tool: a plain function from one call to its answer. It throws a GatewayError to refuse. */
export type MetaTool = (request: MetaToolRequest) => Promise<MetaToolAnswer>;

/** `error`'s envelope as an answer, with the given audit id and any extra headers (RateLimit). */
export function errorAnswer(
  error: GatewayError,
  auditId: string,
  headers: Readonly<Record<string, string>> = {},
): MetaToolAnswer {
  const rendered = renderError(error, auditId);
  return {
    status: rendered.status,
    body: rendered.body,
    headers: { ...headers, ...rendered.headers },
    errorCode: error.code,
  };
}
