/**
 * Pins the retry policy (which failures are retried, with which delays, with the same idempotency key) and
 * the GatewayError / ConnectionError fields. Delays are read from an injected sleep, never timed.
 */
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionError, createClient, GatewayError } from '../src/index.js';
import { envelope, FakeGateway, fakeTime } from './fake-gateway.js';
import { INSTALLATION_KEY, succeeded } from './fixtures.js';

let gateway: FakeGateway;
beforeEach(async () => {
  gateway = await new FakeGateway().start();
});
afterEach(() => gateway.close());

function clientWith(options: { maxRetries?: number; random?: () => number } = {}) {
  const time = fakeTime();
  const client = createClient({
    baseUrl: gateway.url,
    apiKey: INSTALLATION_KEY,
    now: time.now,
    sleep: time.sleep,
    random: options.random ?? (() => 0.5),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
  });
  return { client, time };
}

const ok = { status: 200, body: succeeded('core.org.current.get', {}) };

describe('what is retried', () => {
  it('retries a 503 envelope and keeps the same idempotency_key in the invoke body', async () => {
    gateway.on('POST', '/mcp/invoke', [envelope(503, 'dependency_unavailable', { retryable: true }), ok]);
    const { client } = clientWith();
    await client.invoke('core.org.current.get', {});
    const keys = gateway
      .calls('POST', '/mcp/invoke')
      .map((request) => (request.body as { idempotency_key: string }).idempotency_key);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('keeps the same Idempotency-Key header across retries of an access mutation', async () => {
    gateway.on('POST', '/owner-otp/resend', [
      envelope(500, 'internal_error', { retryable: true }),
      envelope(409, 'idempotency_request_in_progress', { retryable: true, retry_after_seconds: 1 }),
      { status: 200, body: { installation: {} }, headers: { 'Idempotent-Replayed': 'true' } },
    ]);
    const { client } = clientWith();
    await client.resendOwnerOtp();
    const keys = gateway
      .calls('POST', '/owner-otp/resend')
      .map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it('honours retry_after_seconds / Retry-After exactly, and uses full-jitter backoff otherwise', async () => {
    gateway.on('POST', '/mcp/invoke', [
      envelope(429, 'rate_limited', { retryable: true, retry_after_seconds: 7 }),
      envelope(500, 'internal_error', { retryable: true }),
      envelope(500, 'internal_error', { retryable: true }),
      ok,
    ]);
    const { client, time } = clientWith({ maxRetries: 3, random: () => 0.5 });
    await client.invoke('core.org.current.get', {});
    // 7 s from the server; then 0.5 × 1000 ms (second retry) and 0.5 × 2000 ms (third retry).
    expect(time.sleeps).toEqual([7000, 500, 1000]);
  });

  it('reads a Retry-After header when the envelope has no retry_after_seconds', async () => {
    gateway.on('GET', '/health', [
      { status: 503, text: 'busy', headers: { 'Retry-After': '3' } },
      { status: 200, body: { status: 'ok' } },
    ]);
    const { client, time } = clientWith();
    await client.health();
    expect(time.sleeps).toEqual([3000]);
  });

  it('caps the backoff at 8 s before jitter', async () => {
    gateway.on('GET', '/health', [
      ...Array(6).fill(envelope(500, 'internal_error', { retryable: true })),
      { status: 200, body: {} },
    ]);
    const { client, time } = clientWith({ maxRetries: 6, random: () => 0.999 });
    await client.health();
    expect(time.sleeps).toEqual([499, 999, 1998, 3996, 7992, 7992]);
  });

  it('does not retry when the server asks for a longer wait than maxRetryAfterSeconds', async () => {
    gateway.on(
      'POST',
      '/mcp/invoke',
      envelope(429, 'rate_limited', { retryable: true, retry_after_seconds: 600 }),
    );
    const { client, time } = clientWith();
    const error = await client.invoke('core.org.current.get', {}).catch((caught: unknown) => caught);
    expect(GatewayError.isGatewayError(error) && error.retryAfterSeconds).toBe(600);
    expect(gateway.calls('POST', '/mcp/invoke')).toHaveLength(1);
    expect(time.sleeps).toEqual([]);
  });

  it.each([
    [412, 'precondition_failed'],
    [400, 'validation_failed'],
    [409, 'idempotency_key_reused'],
    [403, 'scope_missing'],
    [401, 'invalid_api_key'],
  ])('never retries %i %s', async (status, code) => {
    gateway.on('POST', '/mcp/invoke', envelope(status, code));
    const { client } = clientWith();
    await expect(client.invoke('core.org.current.get', {})).rejects.toMatchObject({ code, status });
    expect(gateway.calls('POST', '/mcp/invoke')).toHaveLength(1);
  });

  it('gives up after maxRetries and throws the last error', async () => {
    gateway.on('GET', '/health', envelope(503, 'dependency_unavailable', { retryable: true }));
    const { client } = clientWith({ maxRetries: 2 });
    await expect(client.health()).rejects.toMatchObject({ code: 'dependency_unavailable', status: 503 });
    expect(gateway.calls('GET', '/health')).toHaveLength(3);
  });

  it('a per-call maxRetries overrides the client setting', async () => {
    gateway.on('GET', '/health', envelope(503, 'dependency_unavailable', { retryable: true }));
    const { client } = clientWith({ maxRetries: 5 });
    await expect(client.health({ maxRetries: 0 })).rejects.toBeInstanceOf(GatewayError);
    expect(gateway.calls('GET', '/health')).toHaveLength(1);
  });
});

describe('GatewayError', () => {
  it('carries every envelope field plus status and X-Request-Id', async () => {
    gateway.on(
      'POST',
      '/mcp/dry_run',
      envelope(400, 'validation_failed', {
        message: 'params/lines must have at least 1 item',
        hint: 'see details',
        schema_pointer: '/params/lines',
        details: [{ schema_pointer: '/params/lines', keyword: 'minItems', message: 'too short' }],
        doc_url: 'https://agw.example/errors#validation_failed',
      }),
    );
    const { client } = clientWith();
    const error = await client.dryRun('billing.payment.list', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect(GatewayError.isGatewayError(error)).toBe(true);
    expect(error).toMatchObject({
      name: 'GatewayError',
      code: 'validation_failed',
      message: 'params/lines must have at least 1 item',
      status: 400,
      retryable: false,
      auditId: 'audit-validation_failed',
      hint: 'see details',
      schemaPointer: '/params/lines',
      details: [{ schema_pointer: '/params/lines', keyword: 'minItems', message: 'too short' }],
      docUrl: 'https://agw.example/errors#validation_failed',
      requestId: 'req-1',
      method: 'POST',
      path: '/mcp/dry_run',
    });
  });

  it('isGatewayError recognises the brand across copies and rejects look-alikes', () => {
    const foreign = Object.assign(new Error('x'), { code: 'x' });
    expect(GatewayError.isGatewayError(foreign)).toBe(false);
    const branded = Object.defineProperty({}, Symbol.for('@agw/client/GatewayError'), { value: true });
    expect(GatewayError.isGatewayError(branded)).toBe(true);
  });

  it('turns a proxy HTML page into unexpected_response, retried only for 502/503/504', async () => {
    const html = {
      status: 502,
      text: '<html><body>Bad Gateway</body></html>',
      headers: { 'Content-Type': 'text/html' },
    };
    gateway.on('GET', '/health', [html, { status: 200, body: { status: 'ok' } }]);
    gateway.on('GET', '/capabilities', {
      status: 403,
      text: '<html>Forbidden by proxy</html>',
      headers: { 'Content-Type': 'text/html' },
    });
    const { client } = clientWith();
    await expect(client.health()).resolves.toEqual({ status: 'ok' });
    const error = await client.capabilities().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'unexpected_response', status: 403, retryable: false });
    expect((error as Error).message).toContain('text/html');
    expect((error as Error).message).not.toContain('Forbidden by proxy');
    expect(gateway.calls('GET', '/capabilities')).toHaveLength(1);
  });

  it('treats a 2xx body that is not JSON as unexpected_response', async () => {
    gateway.on('GET', '/mcp/manifest', { status: 200, text: 'hello' });
    const { client } = clientWith();
    await expect(client.manifest()).rejects.toMatchObject({ code: 'unexpected_response', status: 200 });
  });
});

describe('ConnectionError', () => {
  it('retries a refused connection and then throws ConnectionError(network)', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const time = fakeTime();
    let tries = 0;
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}`,
      sleep: time.sleep,
      random: () => 0,
      fetch: (input, init) => {
        tries += 1;
        return globalThis.fetch(input, init);
      },
    });
    const error = await client.health().catch((caught: unknown) => caught);
    expect(ConnectionError.isConnectionError(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'network', retryable: true, method: 'GET', path: '/health' });
    expect(tries).toBe(3);
  });

  it('reports a timeout as ConnectionError(timeout)', async () => {
    const client = createClient({
      baseUrl: 'http://gateway.invalid',
      maxRetries: 0,
      timeoutMs: 20,
      fetch: (_input, init) =>
        new Promise((_resolve, reject) =>
          init.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    });
    await expect(client.health()).rejects.toMatchObject({ name: 'ConnectionError', reason: 'timeout' });
  });

  it('stops at once when the caller aborts, with the caller’s reason', async () => {
    const controller = new AbortController();
    const client = createClient({
      baseUrl: 'http://gateway.invalid',
      fetch: (_input, init) =>
        new Promise((_resolve, reject) => {
          init.signal?.addEventListener('abort', () => reject(new Error('aborted')));
          controller.abort(new Error('user cancelled'));
        }),
    });
    await expect(client.health({ signal: controller.signal })).rejects.toThrow('user cancelled');
  });
});
