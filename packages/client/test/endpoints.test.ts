/**
 * Pins what every client method sends (method, path, Authorization, Idempotency-Key, body) and that the
 * answer is handed back as parsed. Not covered here: retries, onboarding and the paid flow (own files).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type GatewayClient, RegistrationReplayedError } from '../src/index.js';
import { FakeGateway } from './fake-gateway.js';
import {
  BOOTSTRAP_KEY,
  INSTALLATION_KEY,
  OWNER_OTP,
  organizationsResponse,
  orgCurrent,
  ROTATED_KEY,
  registerResponse,
  succeeded,
} from './fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let gateway: FakeGateway;
let client: GatewayClient;

beforeEach(async () => {
  gateway = await new FakeGateway().start();
  client = createClient({ baseUrl: gateway.url, apiKey: INSTALLATION_KEY, userAgent: 'agw-test/1.0' });
});
afterEach(() => gateway.close());

describe('discovery endpoints', () => {
  it.each([
    ['health', '/health', { status: 'ok' }],
    ['manifest', '/mcp/manifest', { name: 'agw' }],
    ['tools', '/mcp/tools', { tools: [] }],
    ['capabilities', '/capabilities', { schema_version: '1' }],
    ['openapi', '/openapi.json', { openapi: '3.1.0' }],
  ] as const)('%s() sends GET %s without credentials and returns the JSON', async (method, path, body) => {
    gateway.on('GET', path, { status: 200, body });
    const answer = await client[method]();
    expect(answer).toEqual(body);
    const [request] = gateway.calls('GET', path);
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers['idempotency-key']).toBeUndefined();
    expect(request?.headers['user-agent']).toBe('agw-test/1.0');
  });

  it('llmsTxt() returns the plain text', async () => {
    gateway.on('GET', '/llms.txt', { status: 200, text: '# Agent Gateway\n' });
    await expect(client.llmsTxt()).resolves.toBe('# Agent Gateway\n');
  });

  it('keeps a path prefix of the base URL', async () => {
    gateway.on('GET', '/gw/health', { status: 200, body: { status: 'ok' } });
    const prefixed = createClient({ baseUrl: `${gateway.url}/gw/` });
    await expect(prefixed.health()).resolves.toEqual({ status: 'ok' });
  });
});

describe('access endpoints', () => {
  it('register() posts the body without credentials and with a generated Idempotency-Key', async () => {
    gateway.on('POST', '/register', { status: 201, body: registerResponse });
    const body = { owner_email: 'owner@example.com', app: { slug: 'invoice-bot', name: 'Invoice Bot' } };
    await expect(client.register(body)).resolves.toEqual(registerResponse);
    const [request] = gateway.calls('POST', '/register');
    expect(request?.body).toEqual(body);
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['idempotency-key']).toMatch(UUID);
  });

  it('register() throws RegistrationReplayedError on a replay, which carries no bootstrap key', async () => {
    const hint = 'The bootstrap key is shown only in the first answer to this registration.';
    gateway.on('POST', '/register', {
      status: 201,
      body: { ...registerResponse, bootstrap_key: null, replayed: true, hint },
    });
    const body = { owner_email: 'owner@example.com', app: { slug: 'invoice-bot', name: 'Invoice Bot' } };
    const error = await client.register(body).catch((thrown: unknown) => thrown);
    expect(RegistrationReplayedError.isRegistrationReplayedError(error)).toBe(true);
    expect(error).toMatchObject({ appSlug: 'invoice-bot', hint });
    expect((error as Error).message).toMatch(/new Idempotency-Key and another app slug/);
  });

  it('createOrganization() uses the bootstrap key, then switches the client to the installation key', async () => {
    const keyless = createClient({ baseUrl: gateway.url });
    gateway.on('POST', '/organizations', { status: 201, body: organizationsResponse() });
    gateway.on('GET', '/org/current', { status: 200, body: orgCurrent('pending') });
    const body = { owner_email: 'owner@example.com', organization: { name: 'Acme Ltd' } };
    await keyless.createOrganization(body, {
      bootstrapKey: BOOTSTRAP_KEY,
      idempotencyKey: 'my-own-key-0000001',
    });
    const [request] = gateway.calls('POST', '/organizations');
    expect(request?.headers.authorization).toBe(`Bearer ${BOOTSTRAP_KEY}`);
    expect(request?.headers['idempotency-key']).toBe('my-own-key-0000001');
    expect(request?.body).toEqual(body);
    await keyless.currentOrg();
    expect(gateway.calls('GET', '/org/current')[0]?.headers.authorization).toBe(`Bearer ${INSTALLATION_KEY}`);
  });

  it.each([
    ['claimOwnerOtp', '/owner-otp/claim', { otp: OWNER_OTP }],
    ['verifyAgentOtp', '/agent-otp/verify', { otp: '771204' }],
  ] as const)('%s() posts { otp } to %s with the installation key', async (method, path, body) => {
    gateway.on('POST', path, { status: 200, body: { installation: {} } });
    await client[method](body);
    const [request] = gateway.calls('POST', path);
    expect(request?.body).toEqual(body);
    expect(request?.headers.authorization).toBe(`Bearer ${INSTALLATION_KEY}`);
    expect(request?.headers['idempotency-key']).toMatch(UUID);
  });

  it.each([
    ['resendOwnerOtp', '/owner-otp/resend'],
    ['resendAgentOtp', '/agent-otp/resend'],
  ] as const)('%s() posts an empty object to %s', async (method, path) => {
    gateway.on('POST', path, { status: 200, body: { installation: {} } });
    await client[method]();
    const [request] = gateway.calls('POST', path);
    expect(request?.body).toEqual({});
    expect(request?.headers['idempotency-key']).toMatch(UUID);
  });

  it('every mutation gets its own idempotency key', async () => {
    gateway.on('POST', '/owner-otp/resend', { status: 200, body: { installation: {} } });
    await client.resendOwnerOtp();
    await client.resendOwnerOtp();
    const keys = gateway
      .calls('POST', '/owner-otp/resend')
      .map((request) => request.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(2);
  });

  it('rotateKey() posts {} and switches the client to the new key', async () => {
    gateway.on('POST', '/keys/rotate', {
      status: 201,
      body: {
        key: {
          token: ROTATED_KEY,
          expires_at: '2027-01-01T00:00:00Z',
          scopes: [],
          rotated_from_key_id: 'k1',
        },
      },
    });
    gateway.on('GET', '/org/current', { status: 200, body: orgCurrent('approved') });
    await client.rotateKey();
    expect(gateway.calls('POST', '/keys/rotate')[0]?.headers.authorization).toBe(
      `Bearer ${INSTALLATION_KEY}`,
    );
    await client.currentOrg();
    expect(gateway.calls('GET', '/org/current')[0]?.headers.authorization).toBe(`Bearer ${ROTATED_KEY}`);
  });

  it('currentOrg() sends GET without an idempotency key; setApiKey() switches the key', async () => {
    gateway.on('GET', '/org/current', { status: 200, body: orgCurrent('approved') });
    await expect(client.currentOrg()).resolves.toEqual(orgCurrent('approved'));
    client.setApiKey(ROTATED_KEY);
    await client.currentOrg();
    const [first, second] = gateway.calls('GET', '/org/current');
    expect(first?.headers['idempotency-key']).toBeUndefined();
    expect(first?.headers.authorization).toBe(`Bearer ${INSTALLATION_KEY}`);
    expect(second?.headers.authorization).toBe(`Bearer ${ROTATED_KEY}`);
  });
});

describe('meta-tools', () => {
  it('searchCapabilities() posts the request (or {})', async () => {
    gateway.on('POST', '/mcp/search_capabilities', { status: 200, body: { results: [], total: 0 } });
    await client.searchCapabilities({ query: 'invoice', limit: 5 });
    await client.searchCapabilities();
    const [first, second] = gateway.calls('POST', '/mcp/search_capabilities');
    expect(first?.body).toEqual({ query: 'invoice', limit: 5 });
    expect(second?.body).toEqual({});
    expect(first?.headers['idempotency-key']).toBeUndefined();
  });

  it('describe() and dryRun() post id, version and params', async () => {
    gateway.on('POST', '/mcp/describe', { status: 200, body: { id: 'core.org.current.get' } });
    gateway.on('POST', '/mcp/dry_run', { status: 200, body: { valid: true } });
    await client.describe('core.org.current.get');
    await client.describe('core.org.current.get', { version: '1.0.0' });
    await client.dryRun('billing.document.pdf', { document_id: 'd' }, { version: '1.0.0' });
    expect(gateway.calls('POST', '/mcp/describe').map((request) => request.body)).toEqual([
      { id: 'core.org.current.get' },
      { id: 'core.org.current.get', version: '1.0.0' },
    ]);
    expect(gateway.calls('POST', '/mcp/dry_run')[0]?.body).toEqual({
      id: 'billing.document.pdf',
      params: { document_id: 'd' },
      version: '1.0.0',
    });
  });

  it('invoke() always sends an idempotency_key in the body, the caller’s when given', async () => {
    gateway.on('POST', '/mcp/invoke', { status: 200, body: succeeded('core.org.current.get', {}) });
    await client.invoke('core.org.current.get', {});
    await client.invoke(
      'core.org.current.get',
      {},
      { idempotencyKey: 'caller-key-123456', approvalToken: 'appr-tok' },
    );
    const [first, second] = gateway.calls('POST', '/mcp/invoke');
    expect(first?.body).toEqual({
      id: 'core.org.current.get',
      params: {},
      idempotency_key: expect.stringMatching(UUID),
    });
    expect(first?.headers['idempotency-key']).toBeUndefined();
    expect(second?.body).toEqual({
      id: 'core.org.current.get',
      params: {},
      idempotency_key: 'caller-key-123456',
      approval_token: 'appr-tok',
    });
  });

  it('unchecked.invoke() takes an id known only at run time', async () => {
    gateway.on('POST', '/mcp/invoke', { status: 200, body: succeeded('x.y.z', { ok: true }) });
    const answer = await client.unchecked.invoke('x.y.z', { a: 1 });
    expect(answer.result).toEqual({ ok: true });
    expect(gateway.calls('POST', '/mcp/invoke')[0]?.body).toMatchObject({ id: 'x.y.z', params: { a: 1 } });
  });
});
