import type { Router } from '@koa/router';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Knex } from 'knex';
import type { Context } from 'koa';
import { recordAuditEvent } from '../audit.js';
import { readBodyText } from '../http/body.js';
import { GatewayError } from '../http/gateway-error.js';
import { anonymousBodyLimit, refusedBeforeBody } from '../http/key-before-body.js';
import type { GatewayState } from '../http/state.js';
import { authenticateKey } from '../keys/authenticate.js';
import type { MetaToolHandlers } from '../routes/meta-tools.js';
import { createHostCheck } from './host-check.js';
import { separateToolArguments } from './raw-arguments.js';
import { createMcpServer } from './server.js';

/** What the MCP endpoint needs. */
export interface McpRouteOptions {
  readonly knex: Knex;
  readonly publicBaseUrl: string;
  readonly bodyLimitBytes: number;
  /** The meta-tool handlers the HTTP routes run (the same instances). */
  readonly metaTools: MetaToolHandlers;
}

// Codes that mean "send a (valid) installation key": answered with a Bearer challenge.
const UNAUTHENTICATED = new Set(['unauthenticated', 'invalid_api_key', 'api_key_expired', 'api_key_revoked']);
const CHALLENGE = 'Bearer realm="agent-gateway"';

/**
 * Registers POST /mcp, the MCP Streamable HTTP transport (stateless, JSON responses) over the four
 * meta-tools. GET and DELETE are answered 405 by the router: a stateless server has no stream to
 * resume and no session to end (the transport spec allows 405 for both).
 *
 * Before the MCP layer: Host/Origin validation (403 `origin_forbidden`), the installation key when one
 * is sent (an invalid one is HTTP 401 with a Bearer challenge, a bootstrap key 403) — checked before
 * the body is read — and the body limit (413: BODY_LIMIT_BYTES with a valid key, 64 KiB without) and
 * strict UTF-8 (400 `invalid_json`). Those answers are the gateway's error envelope, like every other endpoint; JSON-RPC problems
 * (bad JSON, not a JSON-RPC message, unsupported protocol version) are the SDK's JSON-RPC errors.
 */
export function registerMcpRoutes(router: Router<GatewayState>, options: McpRouteOptions): void {
  const checkHost = createHostCheck(options.publicBaseUrl);
  router.post('/mcp', async (ctx) => {
    checkHost(ctx.get('host'), ctx.headers.origin);
    let authenticated: boolean;
    try {
      const installationId = await authenticate(options.knex, ctx.headers.authorization);
      authenticated = installationId !== undefined;
      // A refusal after the key check is audited as the key's installation (src/mcp/tool-call.ts).
      if (authenticated) ctx.state.actor = `installation:${installationId}`;
    } catch (thrown) {
      throw refusedBeforeBody(ctx, thrown);
    }
    // Read only after the key: an anonymous caller (search and describe only) gets the small limit.
    const limit = authenticated ? options.bodyLimitBytes : anonymousBodyLimit(options.bodyLimitBytes);
    const text = await readBodyText(ctx, limit);
    // Tool arguments bypass the SDK's copy and are validated like the HTTP routes' bodies.
    const toolCalls = separateToolArguments(text);

    let challenge = false;
    const server = createMcpServer({
      knex: options.knex,
      metaTools: options.metaTools,
      http: { headers: ctx.headers, ip: ctx.ip, state: ctx.state, body: text },
      toolArguments: toolCalls.lookup,
      authenticated,
      onRefusal: (code) => {
        ctx.state.errorCode ??= code;
        if (UNAUTHENTICATED.has(code)) challenge = true;
      },
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(
        toWebRequest(ctx, options.publicBaseUrl, toolCalls.body),
      );
      ctx.status = response.status;
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') ctx.set(name, value);
      });
      // A tools/call of dry_run or invoke without a key: the answer is the tool error (a client must
      // see it, so the status stays 200), and the header says how to authenticate.
      if (challenge) ctx.set('WWW-Authenticate', CHALLENGE);
      ctx.body = await response.text();
      if (response.status >= 400) await auditProtocolError(options.knex, ctx, ctx.body as string);
    } finally {
      await server.close();
    }
  });
}

/**
 * A request the SDK refused as JSON-RPC (malformed, not JSON-RPC, unacceptable Accept or Content-Type,
 * unsupported protocol version) is audited like any failed HTTP request, with the JSON-RPC code.
 */
async function auditProtocolError(knex: Knex, ctx: Context & { state: GatewayState }, body: string) {
  let rpcCode: unknown;
  try {
    rpcCode = JSON.parse(body).error?.code;
  } catch {
    rpcCode = undefined;
  }
  ctx.state.errorCode = 'jsonrpc_error';
  await recordAuditEvent(knex, ctx.state.log, {
    auditId: ctx.state.auditId,
    requestId: ctx.state.requestId,
    actor: ctx.state.actor ?? 'anonymous',
    action: 'http.request',
    outcome: 'failed',
    httpStatus: ctx.status,
    details: { code: 'jsonrpc_error', jsonrpc_code: rpcCode ?? null, method: ctx.method, path: ctx.path },
  });
}

/**
 * No Authorization header → anonymous (undefined); a header must hold a valid installation key
 * (401/403): its installation id.
 */
async function authenticate(knex: Knex, authorization: string | undefined): Promise<string | undefined> {
  if (authorization === undefined) return undefined;
  try {
    const { row } = await authenticateKey(knex, authorization, { kind: 'installation' });
    return row.installation_id ?? undefined;
  } catch (thrown) {
    if (thrown instanceof GatewayError && UNAUTHENTICATED.has(thrown.code)) {
      throw new GatewayError(thrown.code, {
        ...thrown.options,
        headers: { 'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"` },
      });
    }
    throw thrown;
  }
}

/** The Web Request the SDK transport reads: the same method and headers, the body already read. */
function toWebRequest(ctx: Context, publicBaseUrl: string, body: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(ctx.path, publicBaseUrl), { method: ctx.method, headers, body });
}
