/**
 * A small stand-in for the gateway on 127.0.0.1 (port 0): scripted answers per route, every request
 * recorded. It speaks the spec's envelope; it does not implement the gateway's logic.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  rawBody: string;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** Raw text body (sent instead of JSON). */
  text?: string;
  headers?: Record<string, string>;
}

type Handler = (request: RecordedRequest, count: number) => Reply;

export class FakeGateway {
  readonly requests: RecordedRequest[] = [];
  private readonly routes = new Map<string, { handler: Handler; count: number }>();
  private server: Server | undefined;
  url = '';

  /** Answers `METHOD path`: a fixed reply, a sequence (the last one repeats) or a function. */
  on(method: string, path: string, reply: Reply | Reply[] | Handler): this {
    const handler: Handler =
      typeof reply === 'function'
        ? reply
        : Array.isArray(reply)
          ? (_, count) => reply[Math.min(count, reply.length - 1)] as Reply
          : () => reply;
    this.routes.set(`${method} ${path}`, { handler, count: 0 });
    return this;
  }

  /** Requests to `METHOD path`, in order. */
  calls(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method && request.path === path);
  }

  async start(): Promise<this> {
    this.server = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = rawBody === '' ? undefined : JSON.parse(rawBody);
        } catch {
          body = rawBody;
        }
        const request: RecordedRequest = {
          method: incoming.method ?? '',
          path: incoming.url ?? '',
          headers: incoming.headers,
          body,
          rawBody,
        };
        this.requests.push(request);
        const route = this.routes.get(`${request.method} ${request.path}`);
        const reply = route
          ? route.handler(request, route.count++)
          : envelope(404, 'not_found', { message: `no route ${request.method} ${request.path}` });
        const headers: Record<string, string> = {
          'X-Request-Id': `req-${this.requests.length}`,
          ...reply.headers,
        };
        if (reply.text !== undefined) {
          outgoing.writeHead(reply.status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
          outgoing.end(reply.text);
        } else {
          outgoing.writeHead(reply.status, { 'Content-Type': 'application/json', ...headers });
          outgoing.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** An error answer in the spec's envelope. */
export function envelope(
  status: number,
  code: string,
  extra: { message?: string; retryable?: boolean; retry_after_seconds?: number; [key: string]: unknown } = {},
): Reply {
  const { message = `${code} happened`, retryable = false, ...rest } = extra;
  const headers: Record<string, string> =
    rest.retry_after_seconds === undefined ? {} : { 'Retry-After': String(rest.retry_after_seconds) };
  return {
    status,
    headers,
    body: { error: { code, message, retryable, audit_id: `audit-${code}`, ...rest } },
  };
}

/** A fake clock: `sleep` advances `now` and records every delay. */
export function fakeTime(start = 1_700_000_000_000) {
  let current = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => current,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      current += ms;
    },
    elapsed: () => current - start,
  };
}
