import type { IncomingHttpHeaders } from 'node:http';
import type { GuardObserver } from '@agw/guard';
import type { Middleware } from 'koa';
import type { GatewayState } from '../http/state.js';

/** The response header that names the request's trace (32 hex digits) while tracing is on. */
export const TRACE_ID_HEADER = 'Agw-Trace-Id';

/**
 * The gateway's OpenTelemetry spans, as the hooks the request path calls (src/tracing/otel.ts). Only
 * exists while tracing is on (src/tracing/start.ts): with tracing off every call site holds `undefined`
 * and nothing of OpenTelemetry is loaded. No hook records parameters, keys, codes or SQL values.
 */
export interface Tracing {
  /**
   * The request's server span (a W3C `traceparent` that came in is its parent); its trace id goes into
   * every log line of the request (`trace_id`) and the {@link TRACE_ID_HEADER} response header.
   */
  readonly middleware: Middleware<GatewayState>;
  /**
   * The server span of a domain's public route (a booking page, an analytics event), answered before Koa
   * (src/domains/public-dispatch.ts): as {@link middleware}, `fn` gets the trace id for its log lines.
   */
  publicRequest<T extends PublicAnswered>(
    request: {
      readonly method: string;
      readonly route: string | null;
      readonly headers: IncomingHttpHeaders;
    },
    fn: (traceId: string) => Promise<T>,
  ): Promise<T>;
  /** A span per guard check (the chain's observeGuard), with the capability and organization ids. */
  readonly observeGuard: GuardObserver;
  /** Runs a capability's handler in its span. */
  handler<T>(run: HandlerRun, fn: () => Promise<T>): Promise<T>;
  /**
   * Runs one SQL round trip in its span (the pool's statement hook, src/db/pool.ts): `text` is our own
   * parameterized SQL, never its parameters. Statements outside a request (background tasks) get none.
   */
  statement<T>(text: string, name: string | undefined, fn: () => Promise<T>): Promise<T>;
  /** `fetch` with a client span per call and the span's `traceparent` sent along (egress calls). */
  readonly fetch: typeof fetch;
  /** Exports what is buffered and stops (the last gateway of the process to stop stops the SDK). */
  shutdown(): Promise<void>;
}

/** What a public route's span records of its answer. */
export interface PublicAnswered {
  readonly status: number;
  readonly errorCode?: string | undefined;
}

/** What a handler span names. */
export interface HandlerRun {
  readonly capabilityId: string;
  readonly capabilityVersion: string;
  /** Opaque: the organization's UUID. */
  readonly organizationId: string;
}
