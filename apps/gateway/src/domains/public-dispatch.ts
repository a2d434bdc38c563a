import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { PublicRequest, PublicResponse, PublicRoute } from '@agw/capabilities';
import type { Knex } from 'knex';
import { readRequestBytes } from '../http/body.js';
import { renderError } from '../http/error-envelope.js';
import { answerFailure } from '../http/error-handler.js';
import { GatewayError } from '../http/gateway-error.js';
import { ANONYMOUS_BODY_LIMIT_BYTES } from '../http/key-before-body.js';
import { headersWithoutSecrets, type PathRedactor, secretPathRedactor } from '../http/log-path.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../http/request-id.js';
import { countRequest, logRequest } from '../http/request-log.js';
import { securityHeaders } from '../http/security-headers.js';
import { assertUtf8 } from '../http/strict-utf8.js';
import type { Logger } from '../logger.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { TRACE_ID_HEADER, type Tracing } from '../tracing/tracing.js';
import { type PublicMatch, publicRouteMatcher } from './public-match.js';
import type { DomainRoute } from './services.js';

/** What the dispatch needs besides the routes. */
export interface PublicDispatchOptions {
  readonly logger: Logger;
  /** For the audit row of a failed request. */
  readonly knex: Knex;
  /** Counts and times the requests (METRICS_PORT set), their 429s apart (src/metrics). */
  readonly metrics?: GatewayMetrics | undefined;
  /** A server span per request (OTEL_* set, src/tracing), its trace id in the log lines and a header. */
  readonly tracing?: Tracing | undefined;
}

type Found = Exclude<PublicMatch, { kind: 'none' }>;

const EMPTY = new Uint8Array(0);
const REQUEST_ID = REQUEST_ID_HEADER.toLowerCase();
const SECURITY_HEADERS = Object.entries(securityHeaders).map(([name, value]) => [name.toLowerCase(), value]);

/**
 * The one place the domains' public routes (event ingestion, booking pages) are served: straight from
 * Node's request listener, every other request going on to `fallback` (the Koa app). These routes are
 * hit by every page view of every site an organization measures, and Koa's context, middleware chain and
 * router cost as much CPU per request as the route itself (bench/analytics-profile.mjs); they need none
 * of the key machinery of the gateway's own routes (docs/decisions.md, "One pipeline").
 *
 * Each per-request rule is the gateway's own, from the module that the Koa middleware uses too: the
 * request id (requestIdOf), the security headers under the route's own, the body limit (413,
 * readRequestBytes) and UTF-8 check (assertUtf8), a thrown error as the error envelope with its audit row
 * and a 500 that says nothing (answerFailure), a refusal the route returns (host.error) rendered by
 * renderError, and the log line (logRequest, with the secret path segments redacted). Paths match as the
 * gateway's router matches its own (publicRouteMatcher): HEAD answers as GET without a body, a known path
 * with another method is a 405 with Allow (OPTIONS without a route: 200 with Allow).
 */
export function servePublicRoutesFirst(
  routes: readonly DomainRoute[],
  fallback: RequestListener,
  options: PublicDispatchOptions,
): RequestListener {
  if (routes.length === 0) return fallback;
  const serving = { ...options, redactPath: secretPathRedactor(routes.map(({ route }) => route.path)) };
  const match = publicRouteMatcher(routes.map(({ route }) => route));

  return (request, response) => {
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const found = match(request.method ?? '', path);
    if (found.kind === 'none') {
      fallback(request, response);
      return;
    }
    const querystring = query === -1 ? '' : url.slice(query + 1);
    const { tracing } = options;
    const served =
      tracing === undefined
        ? serve(found, path, querystring, request, response, serving)
        : tracing.publicRequest(
            { method: request.method ?? '', route: routeOf(found), headers: request.headers },
            (traceId) => {
              response.setHeader(TRACE_ID_HEADER, traceId);
              const logger = options.logger.child({ trace_id: traceId });
              return serve(found, path, querystring, request, response, { ...serving, logger });
            },
          );
    served.catch((error: unknown) => {
      // What Koa's app.on('error') logs: the answer itself could not be written (or logged).
      options.logger.error({ err: error }, 'response stream failed');
      response.destroy();
    });
  };
}

async function serve(
  found: Found,
  path: string,
  querystring: string,
  request: IncomingMessage,
  response: ServerResponse,
  options: PublicDispatchOptions & { readonly redactPath: PathRedactor },
): Promise<{ status: number; errorCode: string | undefined }> {
  const started = process.hrtime.bigint();
  const header = request.headers[REQUEST_ID];
  const requestId = requestIdOf(typeof header === 'string' ? header : undefined);
  // Created only when something is logged: a child logger per request is a measurable share of a page view.
  let log: Logger | undefined;
  const logOf = () => {
    log ??= options.logger.child({ request_id: requestId });
    return log;
  };
  let status: number;
  let errorCode: string | undefined;
  try {
    const answer = await answerOf(found, querystring, request, requestId);
    status = answer.status;
    if (answer.error === undefined) write(response, requestId, answer);
    else {
      // A refusal the route returns: the envelope every error has, with no audit row (see PublicResponse).
      const { code, ...refusal } = answer.error;
      const rendered = renderError(new GatewayError(code, refusal), requestId);
      errorCode = code;
      const headers = { ...answer.headers, ...rendered.headers };
      write(response, requestId, { status: rendered.status, headers, body: rendered.body });
    }
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
  const answered = {
    method: request.method ?? '',
    route: routeOf(found),
    path,
    status,
    started,
    errorCode,
    userAgent: request.headers['user-agent'],
  };
  countRequest(options.metrics, answered);
  if (options.logger.isLevelEnabled('info')) logRequest(logOf(), options.redactPath, answered);
  return { status, errorCode };
}

/** The route template a request matched (never its path: a booking secret stays out of spans and metrics). */
function routeOf(found: Found): string | null {
  return found.kind === 'route' ? found.route.path : null;
}

/** The route's answer; a 405 (or an OPTIONS without a route: its methods) for a known path's other methods. */
async function answerOf(
  found: Found,
  querystring: string,
  request: IncomingMessage,
  requestId: string,
): Promise<PublicResponse> {
  if (found.kind === 'method') {
    if (request.method === 'OPTIONS') return { status: 200, headers: { allow: found.allow } };
    throw new GatewayError('method_not_allowed', {
      message: `Method ${request.method} is not allowed on this path.`,
      headers: { Allow: found.allow },
    });
  }
  const { route, params } = found;
  const body = route.method === 'POST' ? await readRequestBytes(request, limitOf(route)) : EMPTY;
  assertUtf8(body);
  const answer = await route.handle({
    params,
    query: new URLSearchParams(querystring),
    headers: request.headers as Record<string, string | undefined>,
    body,
    clientAddress: request.socket.remoteAddress ?? '',
    requestId,
  } satisfies PublicRequest);
  unansweredAsError(answer, request.method ?? '');
  return answer;
}

function limitOf(route: PublicRoute): number {
  return route.bodyLimitBytes ?? ANONYMOUS_BODY_LIMIT_BYTES;
}

/** Like the Koa stack's not-found step: a 404 without a body, or a 405, answers as the envelope. */
function unansweredAsError(answer: PublicResponse, method: string): void {
  if (answer.error !== undefined) return;
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
 * The answer with Koa's defaults: JSON for a value, text/html or text/plain for a string (html when it
 * starts with `<`), octet-stream for bytes, an empty body with Content-Length 0 (none at all on 204 and
 * 304); the route's headers last. A HEAD request gets the headers only (Node sends no body for it).
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
