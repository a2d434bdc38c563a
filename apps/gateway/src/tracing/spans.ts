import type { GuardObserver, ObservedDecision } from '@agw/guard';
import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { Middleware } from 'koa';
import type { GatewayState } from '../http/state.js';
import { TRACE_ID_HEADER, type Tracing } from './tracing.js';

// Attribute names: OpenTelemetry's semantic conventions where one exists, `agw.*` for our own.
const CAPABILITY_ID = 'agw.capability.id';
const CAPABILITY_VERSION = 'agw.capability.version';
const ORGANIZATION_ID = 'agw.organization.id';
const OUTCOME = 'agw.outcome';
const ERROR_CODE = 'agw.error_code';
const MAX_SQL_TEXT = 2000;

const headerGetter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = carrier[key];
    return typeof value === 'string' || Array.isArray(value) ? (value as string | string[]) : undefined;
  },
};
const headerSetter = { set: (carrier: Headers, key: string, value: string) => carrier.set(key, value) };

/** The span hooks of {@link Tracing} on `tracer`. */
export function createSpans(tracer: Tracer): Omit<Tracing, 'shutdown'> {
  /** `fn` in `span`, made the active one; the span ends when `fn` settles, told how first. */
  async function within<T>(
    span: Span,
    fn: () => Promise<T>,
    told: { readonly settled?: () => void; readonly failed: (thrown: unknown) => void },
  ): Promise<T> {
    try {
      const value = await context.with(trace.setSpan(context.active(), span), fn);
      told.settled?.();
      return value;
    } catch (thrown) {
      told.failed(thrown);
      throw thrown;
    } finally {
      span.end();
    }
  }

  const middleware: Middleware<GatewayState> = async (ctx, next) => {
    // The caller's `traceparent` (and `tracestate`) make this span a child of its trace.
    const parent = propagation.extract(ROOT_CONTEXT, ctx.headers, headerGetter);
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method } },
      parent,
    );
    const { traceId } = span.spanContext();
    ctx.state.log = ctx.state.log.child({ trace_id: traceId });
    ctx.set(TRACE_ID_HEADER, traceId);
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (typeof route === 'string') {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', ctx.status);
      if (ctx.state.errorCode !== undefined) span.setAttribute(ERROR_CODE, ctx.state.errorCode);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };

  const publicRequest: Tracing['publicRequest'] = async ({ method, route, headers }, fn) => {
    const parent = propagation.extract(ROOT_CONTEXT, headers, headerGetter);
    const attributes: Attributes = { 'http.request.method': method };
    if (route !== null) attributes['http.route'] = route;
    const name = route === null ? method : `${method} ${route}`;
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    try {
      const answered = await context.with(trace.setSpan(parent, span), () => fn(span.spanContext().traceId));
      span.setAttribute('http.response.status_code', answered.status);
      if (answered.errorCode !== undefined) span.setAttribute(ERROR_CODE, answered.errorCode);
      if (answered.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      return answered;
    } finally {
      span.end();
    }
  };

  const observeGuard: GuardObserver = (guard, guardContext, check) => {
    const parent = trace.getActiveSpan();
    if (!recording(parent)) return check();
    const { capability } = guardContext.request;
    const organizationId = guardContext.facts.principal?.organization_id;
    const named: Attributes = { [CAPABILITY_ID]: capability.id, [CAPABILITY_VERSION]: capability.version };
    if (organizationId !== undefined) named[ORGANIZATION_ID] = organizationId;
    // The request's span names the capability and organization too: one place to search by them.
    parent.setAttributes(named);
    const attributes: Attributes = { 'agw.guard': guard, ...named };
    const span = tracer.startSpan(`guard ${guard}`, { attributes });
    const decided = context.with(trace.setSpan(context.active(), span), check);
    const ended = <D extends ObservedDecision>(decision: D): D => {
      span.setAttribute(OUTCOME, decision.outcome);
      if (decision.code !== undefined) span.setAttribute(ERROR_CODE, decision.code);
      if (decision.outcome === 'fault') span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      return decision;
    };
    if (!(decided instanceof Promise)) return ended(decided);
    return decided.then(ended, (thrown: unknown) => {
      span.end();
      throw thrown;
    });
  };

  return {
    middleware,
    publicRequest,
    observeGuard,
    async handler(run, fn) {
      if (!recording(trace.getActiveSpan())) return fn();
      const span = tracer.startSpan(`handler ${run.capabilityId}`, {
        attributes: {
          [CAPABILITY_ID]: run.capabilityId,
          [CAPABILITY_VERSION]: run.capabilityVersion,
          [ORGANIZATION_ID]: run.organizationId,
        },
      });
      return within(span, fn, {
        settled: () => span.setAttribute(OUTCOME, 'succeeded'),
        failed: (thrown) => {
          // The code only: a handler's message may quote what it was given.
          const code = (thrown as { code?: unknown } | null)?.code;
          const known = typeof code === 'string';
          span.setAttribute(OUTCOME, known ? code : 'internal_error');
          if (!known || code === 'internal_error') span.setStatus({ code: SpanStatusCode.ERROR });
        },
      });
    },
    statement(text, name, fn) {
      // Background work (sealer, outbox, jobs) would make a trace of every statement: only requests'.
      if (!recording(trace.getActiveSpan())) return fn();
      const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
      const span = tracer.startSpan(name ?? operation, {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'postgresql',
          'db.operation.name': operation,
          'db.query.text': text.length > MAX_SQL_TEXT ? `${text.slice(0, MAX_SQL_TEXT)}…` : text,
        },
      });
      return within(span, fn, { failed: () => span.setStatus({ code: SpanStatusCode.ERROR }) });
    },
    fetch: (input, init) => tracedFetch(tracer, input, init),
  };
}

/**
 * Whether `span` is a request's span being recorded. A request the sampler left out has children left
 * out too (parent-based sampling), so none is made: a sampled-out request costs no span per guard,
 * statement or handler.
 */
function recording(span: Span | undefined): span is Span {
  return span?.isRecording() === true;
}

/** One outbound call in a client span: method, host and status only (a URL's path or query may be secret). */
async function tracedFetch(
  tracer: Tracer,
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!recording(trace.getActiveSpan())) {
    // Not sampled: no span, but the downstream still learns the trace and that it is not sampled.
    propagation.inject(context.active(), headers, headerSetter);
    return fetch(input, { ...init, headers });
  }
  const url = new URL(input instanceof Request ? input.url : input);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const span = tracer.startSpan(method, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': method,
      'server.address': url.hostname,
      ...(url.port === '' ? {} : { 'server.port': Number(url.port) }),
    },
  });
  const spanContext: Context = trace.setSpan(context.active(), span);
  propagation.inject(spanContext, headers, headerSetter);
  try {
    const response = await fetch(input, { ...init, headers });
    span.setAttribute('http.response.status_code', response.status);
    if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    return response;
  } catch (thrown) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw thrown;
  } finally {
    span.end();
  }
}
