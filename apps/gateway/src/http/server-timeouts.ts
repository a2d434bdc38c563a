import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayConfig } from '../config.js';
import type { Logger } from '../logger.js';

/** How long a client may take: Node's own limits, set so a slow client cannot hold a connection. */
export interface HttpTimeouts {
  /** HTTP_HEADERS_TIMEOUT_MS: the request line and every header within this (default 10 s). */
  readonly headersTimeoutMs: number;
  /** HTTP_REQUEST_TIMEOUT_MS: the whole request, body included, within this (default 30 s). */
  readonly requestTimeoutMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this (default 5 s). */
  readonly keepAliveTimeoutMs: number;
}

/**
 * Node's defaults held a never-ending chunked body 318 s and incomplete headers 78 s (issue 12,
 * finding 5); these bound both well below, while leaving a 14 MB upload on a slow link 30 s.
 */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

/** The timeouts of a configuration: the HTTP_*_TIMEOUT_MS values, else {@link DEFAULT_HTTP_TIMEOUTS}. */
export function httpTimeoutsOf(config: GatewayConfig): HttpTimeouts {
  return {
    headersTimeoutMs: config.httpHeadersTimeoutMs ?? DEFAULT_HTTP_TIMEOUTS.headersTimeoutMs,
    requestTimeoutMs: config.httpRequestTimeoutMs ?? DEFAULT_HTTP_TIMEOUTS.requestTimeoutMs,
    keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs ?? DEFAULT_HTTP_TIMEOUTS.keepAliveTimeoutMs,
  };
}

/** createServer options carrying `timeouts`. */
export function serverTimeoutOptions(timeouts: HttpTimeouts): ServerOptions {
  return {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // Node checks the two limits only every connectionsCheckingInterval (default 30 s), which would
    // stretch a 10 s header limit to 40 s; a quarter of the shorter limit keeps the overshoot small.
    connectionsCheckingInterval: Math.max(
      25,
      Math.min(1000, Math.floor(Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs) / 4)),
    ),
  };
}

/**
 * Logs a request Node timed out (a warn line: which phase, the limit, the peer; never a header or
 * body byte, which may hold a key) and answers it as Node would: 408 and close. Other client errors
 * (malformed requests, resets) keep Node's default answers, unlogged: they are noise, not attacks on
 * a resource.
 */
export function handleClientErrors(server: Server, logger: Logger, timeouts: HttpTimeouts): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Node sets _httpMessage once a request's headers were parsed and a response object exists.
    const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      const phase = response === undefined ? 'headers' : 'body';
      logger.warn(
        {
          code: error.code,
          phase,
          timeout_ms: phase === 'headers' ? timeouts.headersTimeoutMs : timeouts.requestTimeoutMs,
          remote_address: socket.remoteAddress,
        },
        phase === 'headers'
          ? 'request headers not received in time; connection closed'
          : 'request body not received in time; connection closed',
      );
    }
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // Like Node: answer only when no response of ours has started on this connection.
    if (response?.headersSent !== true) {
      socket.write(`HTTP/1.1 ${statusOf(error.code)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
    socket.destroySoon();
  });
}

/** The status line Node's own clientError handler would send. */
function statusOf(code: string | undefined): string {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return '408 Request Timeout';
    case 'HPE_HEADER_OVERFLOW':
      return '431 Request Header Fields Too Large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return '413 Payload Too Large';
    default:
      return '400 Bad Request';
  }
}
