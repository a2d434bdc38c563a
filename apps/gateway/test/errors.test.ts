// Every malformed-request case leaves as a valid ErrorEnvelope with the right status and code, a
// request id header and an audit row; 500s leak nothing; an unreachable database answers 503; logs
// never hold secrets. Uses test-only routes injected through createApp's extendRouter hook.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type GatewayHandle, loadConfig, openDatabase, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { expectEnvelope, expectSchema, UUID_V4 } from './helpers/http.js';
import { type CapturedLog, captureLog } from './helpers/log-capture.js';
import { INTERNAL_DETAIL, testRoutes } from './helpers/test-routes.js';

const LIMIT = 1024 * 1024;
let environment: TestEnvironment;
let gateway: GatewayHandle;
let log: CapturedLog;

beforeAll(async () => {
  environment = await createTestEnvironment();
  log = captureLog();
  gateway = await startGateway(loadConfig(environment.env), {
    logger: log.logger,
    extendRouter: testRoutes({ bodyLimitBytes: LIMIT }),
  });
});

afterAll(async () => {
  await gateway?.close();
  await environment?.cleanup();
});

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  const error = expectEnvelope(await response.json(), code);
  expect(error.audit_id).toMatch(UUID_V4);
  return error;
}

const post = (
  path: string,
  body: BodyInit,
  headers: Record<string, string> = { 'Content-Type': 'application/json' },
) => fetch(`${gateway.url}${path}`, { method: 'POST', body, headers });

describe('error envelopes', () => {
  it('unknown route → 404 not_found, for any method, with a generated request id', async () => {
    const response = await fetch(`${gateway.url}/nope`);
    expect(response.headers.get('x-request-id')).toMatch(UUID_V4);
    await expectError(response, 404, 'not_found');
    await expectError(await post('/no-such-endpoint', '{"x":'), 404, 'not_found');
  });

  it('wrong method → 405 method_not_allowed with an Allow header', async () => {
    for (const method of ['POST', 'DELETE', 'PROPFIND']) {
      const response = await fetch(`${gateway.url}/health`, { method });
      expect(response.headers.get('allow')).toBe('HEAD, GET');
      await expectError(response, 405, 'method_not_allowed');
    }
    const getOnPost = await fetch(`${gateway.url}/__test/echo`);
    expect(getOnPost.headers.get('allow')).toBe('POST');
    await expectError(getOnPost, 405, 'method_not_allowed');
  });

  it('a valid JSON body reaches the route', async () => {
    const response = await post('/__test/echo', '{"hello":"world"}');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: { hello: 'world' } });
  });

  it('malformed or empty JSON → 400 invalid_json without a schema_pointer', async () => {
    const error = await expectError(await post('/__test/echo', '{"hello":'), 400, 'invalid_json');
    expect(error).not.toHaveProperty('schema_pointer');
    expect(error.retryable).toBe(false);
    await expectError(await post('/__test/echo', ''), 400, 'invalid_json');
  });

  it('missing or non-JSON Content-Type → 415 unsupported_media_type', async () => {
    await expectError(
      await post('/__test/echo', '{}', { 'Content-Type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    await expectError(
      await post('/__test/echo', '{}', { 'Content-Type': 'application/json; charset=latin1' }),
      415,
      'unsupported_media_type',
    );
    const noType = await fetch(`${gateway.url}/__test/echo`, {
      method: 'POST',
      body: new Uint8Array([123, 125]),
    });
    await expectError(noType, 415, 'unsupported_media_type');
    const accepted = await post('/__test/echo', '{}', { 'Content-Type': 'application/json; charset=UTF-8' });
    expect(accepted.status).toBe(200);
  });

  it('a body over 1 MiB → 413 payload_too_large, declared or streamed', async () => {
    const oversized = `{"pad":"${'x'.repeat(LIMIT)}"}`;
    await expectError(await post('/__test/echo', oversized), 413, 'payload_too_large');

    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > LIMIT) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const streamed = await fetch(`${gateway.url}/__test/echo`, {
      method: 'POST',
      body: stream,
      headers: { 'Content-Type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await expectError(streamed, 413, 'payload_too_large');

    const justUnder = `{"pad":"${'x'.repeat(LIMIT - 12)}"}`;
    expect((await post('/__test/echo', justUnder)).status).toBe(200);
  });

  it('an unexpected error → 500 internal_error with a generic message and nothing internal', async () => {
    const response = await fetch(`${gateway.url}/__test/crash`);
    const text = await response.clone().text();
    const error = await expectError(response, 500, 'internal_error');
    expect(error.message).toBe('An unexpected error occurred.');
    expect(error.retryable).toBe(true);
    for (const leak of [/at .*\.(ts|js):\d+/, /node_modules/, /SELECT/, /Error:/, /secret\.ts/, /agw_ak_/]) {
      expect(text).not.toMatch(leak);
    }
    // The detail is in the log under the same audit_id, for the operator.
    const logged = log
      .entries()
      .find((entry) => entry.audit_id === error.audit_id && entry.msg === 'request failed');
    expect(JSON.stringify(logged)).toContain('SELECT * FROM keys');
  });

  it('records every error response in audit_events under its audit_id', async () => {
    const response = await fetch(`${gateway.url}/missing`, { headers: { 'X-Request-Id': 'audit-check-1' } });
    const error = await expectError(response, 404, 'not_found');
    const rows = await gateway.knex('audit_events').where({ audit_id: error.audit_id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      request_id: 'audit-check-1',
      actor: 'anonymous',
      action: 'http.request',
      outcome: 'failed',
      http_status: 404,
      details: { code: 'not_found', method: 'GET', path: '/missing' },
    });
  });

  it('gives each request its own audit_id even when the client reuses a request id', async () => {
    const headers = { 'X-Request-Id': 'same-id' };
    const first = (await (await fetch(`${gateway.url}/a`, { headers })).json()) as {
      error: { audit_id: string };
    };
    const second = (await (await fetch(`${gateway.url}/b`, { headers })).json()) as {
      error: { audit_id: string };
    };
    expect(first.error.audit_id).not.toBe(second.error.audit_id);
  });
});

describe('logging', () => {
  it('writes one line per request and never logs keys, tokens or one-time codes', async () => {
    const secretKey = 'agw_ak_k3yprefix.Th1sIsTheSecretPart';
    const headers = {
      Authorization: `Bearer ${secretKey}`,
      'Content-Type': 'application/json',
      'X-Request-Id': 'log-1',
    };
    const body = JSON.stringify({
      otp: '918273',
      installation_key: secretKey,
      nested: { access_token: 'tok-SECRET-77', api_key: 'k-SECRET-88', note: `my key is ${secretKey}` },
    });
    expect((await post('/__test/log-body', body, headers)).status).toBe(204);
    expect((await fetch(`${gateway.url}/__test/crash`, { headers })).status).toBe(500);

    const text = log.text();
    for (const secret of [
      'Th1sIsTheSecretPart',
      '918273',
      'tok-SECRET-77',
      'k-SECRET-88',
      'SuperSecretLeak',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
    const requestLine = log
      .entries()
      .find((entry) => entry.msg === 'request' && entry.request_id === 'log-1');
    expect(requestLine).toMatchObject({ method: 'POST', route: '/__test/log-body', status: 204 });
    expect(typeof requestLine?.duration_ms).toBe('number');
    expect(INTERNAL_DETAIL).toContain('SuperSecretLeak');
  });
});

describe('an unreachable database', () => {
  let server: Server;
  let url: string;
  const downLog = captureLog();
  const logger = downLog.logger;
  const database = openDatabase(
    { databaseUrl: 'postgres://agw:pw@127.0.0.1:1/agw', dataDir: '/nonexistent' },
    logger,
  );

  beforeAll(async () => {
    const config = loadConfig({ ...environment.env, DATABASE_URL: 'postgres://agw:pw@127.0.0.1:1/agw' });
    const app = createApp({
      config,
      logger,
      database,
      extendRouter: testRoutes({ bodyLimitBytes: LIMIT, knex: database.knex }),
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await database.close();
  });

  it('makes /health answer 503 degraded with the database down', async () => {
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { status: string; checks: { database: unknown } };
    expectSchema('HealthResponse', body);
    expect(body.status).toBe('degraded');
    expect(body.checks.database).toEqual({ status: 'down', driver: 'postgres' });
  });

  it('answers a request that needs it with 503 dependency_unavailable, retryable, with Retry-After', async () => {
    const response = await fetch(`${url}/__test/query`);
    const error = await expectError(response, 503, 'dependency_unavailable');
    expect(error.retryable).toBe(true);
    expect(error.retry_after_seconds).toBe(5);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(JSON.stringify(error)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    // The audit row could not be written either; the response still went out and the log keeps it.
    const fallback = downLog.entries().find((entry) => entry.msg === 'audit insert failed');
    expect(fallback).toMatchObject({ audit_event: { auditId: error.audit_id, httpStatus: 503 } });
  });
});
