import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { PublicRequest, PublicResponse, PublicRoute } from '@agw/capabilities';
import type { Knex } from 'knex';
import { answerFailure } from '../http/error-handler.js';
import { GatewayError } from '../http/gateway-error.js';
import { ANONYMOUS_BODY_LIMIT_BYTES } from '../http/key-before-body.js';
import { headersWithoutSecrets, type PathRedactor, secretPathRedactor } from '../http/log-path.js';
import { REQUEST_ID_HEADER, SANE_REQUEST_ID } from '../http/request-id.js';
import { securityHeaders } from '../http/security-headers.js';
import type { Logger } from '../logger.js';
import { sanitizeForLog } from '../logger.js';
import { readPublicBody } from './public-body.js';
import { utf8Body } from './public-routes.js';
import type { DomainRoute } from './services.js';

/** What the dispatch needs besides the routes. */
export interface PublicDispatchOptions {
  readonly logger: Logger;
  /** For the audit row of a failed request. */
  readonly knex: Knex;
}

interface Matcher {
  readonly route: PublicRoute;
  /** The path's segments; a `:name` segment takes any one segment as that parameter. */
  readonly segments: readonly string[];
}

const EMPTY = new Uint8Array(0);
const PLAIN_SEGMENT = /^[A-Za-z0-9._~-]*$/;
const PARAMETER = /^:[A-Za-z_][A-Za-z0-9_]*$/;
const REQUEST_ID = REQUEST_ID_HEADER.toLowerCase();
const SECURITY_HEADERS = Object.entries(securityHeaders).map(([name, value]) => [name.toLowerCase(), value]);

/**
 * Serves the domains' public routes (event ingestion, booking pages) straight from Node's request
 * listener, and hands every other request to `fallback` (the Koa app). These routes are hit by every
 * page view of every site an organization measures, and Koa's context, middleware chain and router cost
 * as much CPU per request as the route itself (bench/analytics-profile.mjs); they need none of the key
 * machinery the rest of the gateway runs.
 *
 * A public route answers here exactly as behind the Koa middleware (src/domains/public-routes.ts, which
 * still mounts them for whatever this does not match): the request id (a sane X-Request-Id or a UUID,
 * echoed), the security headers under the route's own, the body limit (413) and UTF-8 check (400), a
 * thrown error as the error envelope with its audit row and a 500 that says nothing, and the request log
 * line. Only an exact method and path match is served here; HEAD, a trailing slash, another case or a
 * percent-encoded segment go to Koa, which answers them as before (405 with Allow, 404 …).
 */
export function servePublicRoutesFirst(
  routes: readonly DomainRoute[],
  fallback: RequestListener,
  options: PublicDispatchOptions,
): RequestListener {
  const redactPath = secretPathRedactor(routes.map(({ route }) => route.path));
  const exact = new Map<string, PublicRoute>();
  const patterns: Matcher[] = [];
  for (const { route } of routes) {
    const segments = route.path.split('/');
    // Other router syntax (optional parts, wildcards, patterns) is left to Koa's router, which knows it.
    if (!segments.every((segment) => PLAIN_SEGMENT.test(segment) || PARAMETER.test(segment))) continue;
    if (route.path.includes(':')) patterns.push({ route, segments });
    else exact.set(`${route.method} ${route.path}`, route);
  }
  if (exact.size === 0 && patterns.length === 0) return fallback;

  function match(
    method: string,
    path: string,
  ): { route: PublicRoute; params: Record<string, string> } | undefined {
    const route = exact.get(`${method} ${path}`);
    if (route !== undefined) return { route, params: {} };
    if (patterns.length === 0 || path.includes('%')) return undefined;
    const segments = path.split('/');
    for (const pattern of patterns) {
      if (pattern.route.method !== method || pattern.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      const matched = pattern.segments.every((wanted, index) => {
        const segment = segments[index] as string;
        if (!wanted.startsWith(':')) return wanted === segment;
        params[wanted.slice(1)] = segment;
        return segment !== '';
      });
      if (matched) return { route: pattern.route, params };
    }
    return undefined;
  }

  return (request, response) => {
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const found = match(request.method ?? '', path);
    if (found === undefined) {
      fallback(request, response);
      return;
    }
    const querystring = query === -1 ? '' : url.slice(query + 1);
    serve(found.route, found.params, path, querystring, request, response, { ...options, redactPath }).catch(
      (error: unknown) => {
        // What Koa's app.on('error') logs: the answer itself could not be written (or logged).
        options.logger.error({ err: error }, 'response stream failed');
        response.destroy();
      },
    );
  };
}

async function serve(
  route: PublicRoute,
  params: Record<string, string>,
  path: string,
  querystring: string,
  request: IncomingMessage,
  response: ServerResponse,
  options: PublicDispatchOptions & { readonly redactPath: PathRedactor },
): Promise<void> {
  const started = process.hrtime.bigint();
  const incoming = request.headers[REQUEST_ID];
  const requestId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  // Created only when something is logged: a child logger per request is a measurable share of a page view.
  let log: Logger | undefined;
  const logOf = () => {
    log ??= options.logger.child({ request_id: requestId });
    return log;
  };
  let status: number;
  let errorCode: string | undefined;
  try {
    const body =
      route.method === 'POST'
        ? await readPublicBody(request, route.bodyLimitBytes ?? ANONYMOUS_BODY_LIMIT_BYTES)
        : EMPTY;
    utf8Body(body);
    const answer = await route.handle({
      params,
      query: new URLSearchParams(querystring),
      headers: request.headers as Record<string, string | undefined>,
      body,
      clientAddress: request.socket.remoteAddress ?? '',
      requestId,
    } satisfies PublicRequest);
    unansweredAsError(answer, route.method);
    status = answer.status;
    write(response, requestId, answer);
  } catch (thrown) {
    const failure = await answerFailure(options.knex, thrown, {
      auditId: randomUUID(),
      requestId,
      log: logOf(),
      method: request.method ?? '',
      path: options.redactPath(path),
      headers: headersWithoutSecrets(request.headers, options.redactPath),
    });
    status = failure.status;
    errorCode = failure.code;
    // Like the Koa error handler: of what was set before the failure, only these survive.
    const headers: Record<string, string> = baseHeaders(requestId);
    for (const [name, value] of Object.entries(failure.headers)) headers[name.toLowerCase()] = value;
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = String(Buffer.byteLength(failure.body));
    send(response, status, headers, failure.body);
  }
  if (options.logger.isLevelEnabled('info')) {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    logOf().info(
      {
        method: request.method,
        route: route.path,
        path: sanitizeForLog(options.redactPath(path)).slice(0, 512),
        status,
        duration_ms: Math.round(durationMs * 100) / 100,
        error_code: errorCode,
        user_agent: sanitizeForLog(request.headers['user-agent'] ?? '').slice(0, 256) || undefined,
      },
      'request',
    );
  }
}

/** Like the Koa stack's not-found step: a 404 without a body, or a 405, answers as the envelope. */
function unansweredAsError(answer: PublicResponse, method: string): void {
  if (answer.status === 405 || answer.status === 501) {
    throw new GatewayError('method_not_allowed', {
      message: `Method ${method} is not allowed on this path.`,
    });
  }
  if (answer.status === 404 && (answer.body === undefined || answer.body === null)) {
    throw new GatewayError('not_found', { message: 'No endpoint exists at this path.' });
  }
}

function baseHeaders(requestId: string): Record<string, string> {
  const headers: Record<string, string> = { [REQUEST_ID]: requestId };
  for (const [name, value] of SECURITY_HEADERS) headers[name as string] = value as string;
  return headers;
}

/**
 * The route's answer with Koa's defaults (public-routes.ts sets the body on a Koa context): JSON for a
 * value, text/html or text/plain for a string (html when it starts with `<`), octet-stream for bytes,
 * an empty body with Content-Length 0 (none at all on 204 and 304); the route's headers last.
 */
function write(response: ServerResponse, requestId: string, answer: PublicResponse): void {
  const headers = baseHeaders(requestId);
  const { body } = answer;
  let payload: string | Buffer | undefined;
  if (typeof body === 'string') {
    payload = body;
    headers['content-type'] = /^\s*</.test(body) ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8';
  } else if (body instanceof Uint8Array) {
    payload = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    headers['content-type'] = 'application/octet-stream';
  } else if (body !== undefined && body !== null) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  const empty = answer.status === 204 || answer.status === 304;
  if (empty) {
    payload = undefined;
    delete headers['content-type'];
  } else headers['content-length'] = String(payload === undefined ? 0 : Buffer.byteLength(payload));
  if (answer.headers)
    for (const [name, value] of Object.entries(answer.headers)) headers[name.toLowerCase()] = value;
  send(response, answer.status, headers, payload);
}

function send(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  payload: string | Buffer | undefined,
): void {
  // The client may be gone (a beacon's page closed); there is nobody left to answer.
  if (response.destroyed || response.headersSent) return;
  response.writeHead(status, headers);
  if (payload === undefined) response.end();
  else response.end(payload);
}
