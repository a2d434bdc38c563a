// OpenTelemetry traces, read back from an OTLP/HTTP receiver on loopback (JSON, OTEL_EXPORTER_OTLP_PROTOCOL
// =http/json): the gateway configured by the standard OTEL_* variables alone sends one trace per invoke,
// joined to the caller's `traceparent`, with a span per guard that ran, the handler, each of its SQL
// statements and its egress call (which carries the trace on to the upstream); the trace id is in the
// request's log lines and the Agw-Trace-Id header; no span holds a parameter, key or SQL value. A caller's
// unsampled trace is followed: nothing recorded, the trace passed on unsampled.
//
// Runs in the PGlite pass only: CI's time budget is tight and the spans come from the gateway's own pool
// hook (src/db/pool.ts), the same for both engines. To run it against PostgreSQL by hand, set
// TRACING_TEST_ON_POSTGRES=1 with DATABASE_URL.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardOrder } from '@agw/guard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtelTracing } from '../src/tracing/otel.js';
import { tracingRequested } from '../src/tracing/start.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { captureLog } from './helpers/log-capture.js';

/** A span as OTLP/JSON encodes it (ids in hex). */
interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes?: ReadonlyArray<{ key: string; value: Record<string, unknown> }>;
}

const SERVER = 2;
const SECRET_PARAM = 'param-value-never-in-a-span';
const onPostgres = process.env.DATABASE_URL !== undefined && process.env.TRACING_TEST_ON_POSTGRES !== '1';

let receiver: Server;
let receiverUrl = '';
const exports: unknown[] = [];
const OTEL_ENV = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'agw-tracing-test' };
const upstreamHeaders: IncomingHttpHeaders[] = [];

describe.skipIf(onPostgres)('OpenTelemetry traces', () => {
  beforeAll(async () => {
    // The collector and the upstream the handler calls: one loopback server.
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/v1/traces') {
          exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          response.setHeader('content-type', 'application/json');
          response.end('{}');
          return;
        }
        upstreamHeaders.push(request.headers);
        response.setHeader('content-type', 'application/json');
        response.end('{"rate":"1.08"}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // The standard variables, read when the gateway starts. The gateway project's files share their
    // worker (isolate: false): they are removed again after this file, or every gateway started later in
    // the worker would trace too.
    Object.assign(process.env, OTEL_ENV, { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl });
  });
  afterAll(async () => {
    for (const name of [...Object.keys(OTEL_ENV), 'OTEL_EXPORTER_OTLP_ENDPOINT']) delete process.env[name];
    await new Promise((resolve) => receiver.close(resolve));
  });

  const log = captureLog();
  const traced = demoCapability<{ note: string }, unknown>(
    {
      id: 'demo.traced.read',
      cost_credits: '0.5',
      egress: ['127.0.0.1'],
      input_schema: {
        type: 'object',
        properties: { note: { type: 'string' } },
        required: ['note'],
        additionalProperties: false,
      },
    },
    async (input, ctx) => {
      const { rows } = await ctx.sql.query<{ echo: string }>('select $1::text as echo', [input.note]);
      const rate = await (await ctx.fetch(`${receiverUrl}/rates`)).json();
      return { echoed: rows[0]?.echo === input.note, rate };
    },
  );
  const gateway = useGateway({
    ...withCapabilities(traced),
    logger: log.logger,
    env: { EGRESS_ALLOWED_HOSTS: '127.0.0.1', EGRESS_ALLOW_HTTP: 'true' },
  });

  it('sends one trace per invoke: the caller trace, every guard that ran, the handler, its SQL and egress', async () => {
    const { key, organizationId } = await approvedInstallation(gateway, '10');
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const answered = await invoke(
      gateway.url,
      key,
      { id: 'demo.traced.read', params: { note: SECRET_PARAM } },
      {
        traceparent: `00-${traceId}-${callerSpan}-01`,
        'x-request-id': 'traced-invoke-1',
      },
    );
    expect([answered.status, answered.body.status]).toEqual([200, 'succeeded']);
    expect(answered.headers.get('agw-trace-id')).toBe(traceId);
    const refusedTrace = 'a0000000000000000000000000000001';
    const refused = await invoke(
      gateway.url,
      key,
      { id: 'demo.traced.read', params: { note: 5 } },
      {
        traceparent: `00-${refusedTrace}-${callerSpan}-01`,
      },
    );
    expect(refused.status).toBe(400);
    expect(refused.headers.get('agw-trace-id')).toBe(refusedTrace);
    // A caller that did not sample its trace: the gateway follows (parent-based), records nothing, and
    // still names the trace in the header and passes it on unsampled.
    const unsampledTrace = 'b0000000000000000000000000000002';
    const unsampled = await invoke(
      gateway.url,
      key,
      { id: 'demo.traced.read', params: { note: 'x' } },
      {
        traceparent: `00-${unsampledTrace}-${callerSpan}-00`,
      },
    );
    expect(unsampled.status).toBe(200);
    expect(unsampled.headers.get('agw-trace-id')).toBe(unsampledTrace);

    // A domain's public route, answered before Koa, is a server span of the caller's trace too.
    const publicTrace = 'c0000000000000000000000000000003';
    const script = await fetch(`${gateway.url}/a/script.js`, {
      headers: { traceparent: `00-${publicTrace}-${callerSpan}-01`, 'x-request-id': 'traced-public-1' },
    });
    expect(script.status).toBe(200);
    expect(script.headers.get('agw-trace-id')).toBe(publicTrace);

    // Closing the gateway exports what the batch processor still holds.
    await gateway.gateway.close();
    const spans = exportedSpans();

    const trace = spans.filter((span) => span.traceId === traceId);
    const servers = trace.filter((span) => span.kind === SERVER);
    expect(servers.map((span) => [span.name, span.parentSpanId])).toEqual([['POST /mcp/invoke', callerSpan]]);
    expect(attribute(servers[0], 'agw.capability.id')).toBe('demo.traced.read');
    expect(attribute(servers[0], 'agw.organization.id')).toBe(organizationId);
    // A paid read passes all nine guards, each in a span of its own under the request's.
    const guards = trace.filter((span) => span.name.startsWith('guard '));
    expect(guards.map((span) => span.name).sort()).toEqual(guardOrder.map((name) => `guard ${name}`).sort());
    for (const guard of guards) expect(attribute(guard, 'agw.outcome')).toBe('pass');
    const [handler] = trace.filter((span) => span.name === 'handler demo.traced.read');
    expect(handler).toBeDefined();
    expect(attribute(handler, 'agw.organization.id')).toBe(organizationId);
    expect(attribute(handler, 'agw.outcome')).toBe('succeeded');
    // The handler's own statement and its egress call are the handler's children.
    const children = trace.filter((span) => span.parentSpanId === handler?.spanId);
    const statement = children.find((span) => attribute(span, 'db.query.text') === 'select $1::text as echo');
    expect(statement?.name).toBe('SELECT');
    const egress = children.find((span) => span.name === 'GET');
    expect(attribute(egress, 'server.address')).toBe('127.0.0.1');
    // The guards' own statements are spans too (the key lookup at least, unless cached).
    expect(trace.filter((span) => attribute(span, 'db.system.name') === 'postgresql').length).toBeGreaterThan(
      1,
    );
    // The upstream was called within the same trace, from the egress span.
    expect(upstreamHeaders.map((headers) => headers.traceparent)).toEqual([
      `00-${traceId}-${egress?.spanId}-01`,
      expect.stringMatching(new RegExp(`^00-${unsampledTrace}-[0-9a-f]{16}-00$`)),
    ]);
    expect(spans.some((span) => span.traceId === unsampledTrace)).toBe(false);

    // The refusal's trace stops at the schema guard, which names the code; no handler ran.
    const refusal = spans.filter((span) => span.traceId === refusedTrace);
    expect(refusal.filter((span) => span.kind === SERVER)).toHaveLength(1);
    const schema = refusal.find((span) => span.name === 'guard schema');
    expect([attribute(schema, 'agw.outcome'), attribute(schema, 'agw.error_code')]).toEqual([
      'deny',
      'validation_failed',
    ]);
    expect(refusal.some((span) => span.name.startsWith('handler'))).toBe(false);
    expect(refusal.some((span) => span.name === 'guard audit')).toBe(false);

    const publicSpans = spans.filter((span) => span.traceId === publicTrace);
    expect(publicSpans.map((span) => [span.name, span.kind, span.parentSpanId])).toEqual([
      ['GET /a/script.js', SERVER, callerSpan],
    ]);
    expect(attribute(publicSpans[0], 'http.response.status_code')).toBe(200);
    expect(log.entries().find((entry) => entry.request_id === 'traced-public-1')?.trace_id).toBe(publicTrace);

    // What the spans never carry: the params, the key, its secret part.
    const exported = JSON.stringify(exports);
    expect(exported).not.toContain(SECRET_PARAM);
    expect(exported).not.toContain(key.split('.')[1]);
    expect(exported).not.toContain('agw_ak_');

    // Every log line of the traced request names its trace.
    const lines = log.entries().filter((entry) => entry.request_id === 'traced-invoke-1');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.trace_id).toBe(traceId);
  });
});

describe('when tracing is on', () => {
  it('only with an OTLP endpoint, and not when the SDK or the trace exporter is switched off', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'agw' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      true,
    );
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
    expect(
      tracingRequested({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_TRACES_EXPORTER: 'none',
      }),
    ).toBe(false);
  });
});

describe('the tracing start log line', () => {
  it('names the OTLP endpoint without the credentials its URL carries', async () => {
    const log = captureLog();
    const tracing = startOtelTracing(log.logger, {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://agw:s3cret-token@collector.example.com:4318',
    });
    await tracing.shutdown();
    const line = log.entries().find((entry) => entry.msg === 'OpenTelemetry tracing on');
    expect(line?.endpoint).toBe('https://agw:***@collector.example.com:4318/');
    expect(log.text()).not.toContain('s3cret-token');
  });
});

async function invoke(url: string, key: string, body: object, headers: Record<string, string>) {
  const response = await fetch(`${url}/mcp/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { status?: string },
  };
}

function exportedSpans(): OtlpSpan[] {
  return exports.flatMap((body) =>
    ((body as { resourceSpans?: unknown[] }).resourceSpans ?? []).flatMap((resource) =>
      ((resource as { scopeSpans?: unknown[] }).scopeSpans ?? []).flatMap(
        (scope) => (scope as { spans?: OtlpSpan[] }).spans ?? [],
      ),
    ),
  );
}

/** An attribute's value (string or integer) of `span`. */
function attribute(span: OtlpSpan | undefined, key: string): unknown {
  const value = span?.attributes?.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
}
