import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type ErrorEnvelope, errorCodes } from '@agw/contracts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Knex } from 'knex';
import { recordAuditEvent } from '../audit.js';
import { publicErrorEnvelope, toGatewayError } from '../http/error-handler.js';
import { GatewayError } from '../http/gateway-error.js';
import { assertJsonDepth } from '../http/json-depth.js';
import { assertNoNulCharacter } from '../http/nul-character.js';
import type { GatewayState } from '../http/state.js';
import type { MetaTool, MetaToolAnswer } from '../meta-tools/answer.js';

/** The HTTP request a tools/call arrived in, as far as the meta-tool handlers need it. */
export interface McpHttpFacts {
  readonly headers: IncomingHttpHeaders;
  readonly ip: string;
  readonly state: Pick<GatewayState, 'requestId' | 'log' | 'actor'>;
  /**
   * The request body as read (the JSON-RPC text): the NUL check scans it first, as the HTTP body
   * parser scans its text. Without it the arguments are serialized for that scan.
   */
  readonly body?: string;
}

/** A tool call's result plus what the HTTP response should say about it. */
export interface McpToolOutcome {
  readonly result: CallToolResult;
  /** The spec error code of a refusal (for the 401 challenge and the request log). */
  readonly errorCode?: string;
}

/**
 * The MCP adapter: runs one meta-tool, the same function as its HTTP route, with its own audit id and the audit
 * transport `mcp`. A success becomes `structuredContent` (the spec's response object) plus a text
 * rendering; a refusal (an error status, or a thrown GatewayError such as a validation failure)
 * becomes a tool error (`isError: true`) whose structured content is the spec's error envelope. A
 * thrown refusal is audited like the HTTP error handler audits one (action `mcp.tools_call`).
 */
export async function callMetaTool(
  knex: Knex,
  name: string,
  tool: MetaTool,
  args: unknown,
  http: McpHttpFacts,
  quote?: string,
): Promise<McpToolOutcome> {
  const auditId = randomUUID();
  const log = http.state.log.child({ mcp_tool: name });
  const { headers, ip } = http;
  let answer: MetaToolAnswer;
  try {
    // The arguments are what the HTTP routes get as their body (see raw-arguments.ts), and get the
    // same checks: the body parser's (nesting depth, NUL characters), then the tool's own schema validation.
    assertJsonDepth(args);
    assertNoNulCharacter(http.body ?? JSON.stringify(args ?? null), args);
    answer = await tool({
      body: args ?? {},
      headers,
      ip,
      requestId: http.state.requestId,
      auditId,
      log,
      transport: 'mcp',
      ...(quote === undefined ? {} : { quote }),
    });
  } catch (thrown) {
    const error = toGatewayError(thrown);
    const status = errorCodes[error.code].status;
    if (status >= 500)
      log.error({ err: thrown, audit_id: auditId, code: error.code }, 'mcp tool call failed');
    await recordAuditEvent(knex, log, {
      auditId,
      requestId: http.state.requestId,
      actor: http.state.actor ?? 'anonymous',
      action: 'mcp.tools_call',
      outcome: 'failed',
      httpStatus: status,
      details: { code: error.code, tool: name },
      transport: 'mcp',
    });
    return refusal(publicErrorEnvelope(error, auditId));
  }
  const body = jsonOf(answer.body);
  if (typeof body !== 'object' || body === null) {
    // Every meta-tool answers a JSON object; anything else is a bug, shown as a fault, not a crash.
    log.error({ audit_id: auditId, status: answer.status }, 'meta-tool answered no JSON object');
    return refusal(publicErrorEnvelope(new GatewayError('internal_error'), auditId));
  }
  if (answer.status >= 400) return refusal(body as ErrorEnvelope);
  return { result: success(name, body) };
}

/** An answer's body as a JSON value: a tool result carries it as structured content. */
function jsonOf(body: MetaToolAnswer['body']): unknown {
  if (Buffer.isBuffer(body)) return JSON.parse(body.toString('utf8'));
  if (typeof body === 'string') return JSON.parse(body);
  return body;
}

function success(name: string, body: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: `${headline(name, body)}\n${JSON.stringify(body)}` }],
    structuredContent: body as Record<string, unknown>,
  };
}

function refusal(envelope: ErrorEnvelope): McpToolOutcome {
  const { code, message, hint } = envelope.error;
  return {
    result: {
      isError: true,
      content: [
        { type: 'text', text: `${code}: ${message}${hint ? ` ${hint}` : ''}\n${JSON.stringify(envelope)}` },
      ],
      structuredContent: envelope as unknown as Record<string, unknown>,
    },
    errorCode: code,
  };
}

/** A one-line summary before the JSON, for clients that show only text to the model or the user. */
function headline(name: string, body: unknown): string {
  const answer = body as Record<string, unknown>;
  switch (name) {
    case 'search_capabilities':
      return `${String(answer.total)} capabilities match; ${(answer.results as unknown[]).length} shown.`;
    case 'describe':
      return `${String(answer.id)}@${String(answer.version)}: ${String(answer.summary)}`;
    case 'dry_run':
      return answer.valid === true
        ? `${String(answer.capability_id)}@${String(answer.resolved_version)}: params valid.`
        : `${String(answer.capability_id)}@${String(answer.resolved_version)}: params invalid.`;
    default:
      return `${String(answer.capability_id)}@${String(answer.resolved_version)}: ${String(answer.status)}${answer.replayed === true ? ' (replayed)' : ''}.`;
  }
}
