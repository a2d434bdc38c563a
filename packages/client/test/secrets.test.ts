/**
 * Pins that keys and one-time codes never show up in the debug log, in errors (message, toJSON, toString,
 * util.inspect) or in the client object, even when a misbehaving server echoes them back.
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type DebugEvent, GatewayError } from '../src/index.js';
import { envelope, FakeGateway, fakeTime } from './fake-gateway.js';
import {
  BOOTSTRAP_KEY,
  INSTALLATION_KEY,
  OWNER_OTP,
  organizationsResponse,
  ROTATED_KEY,
  registerResponse,
  succeeded,
} from './fixtures.js';

const SECRETS = [BOOTSTRAP_KEY, INSTALLATION_KEY, ROTATED_KEY, OWNER_OTP, 'approval-token-secret'];
const SECRET_PARTS = [
  'bootstrapsecretvalue42',
  'installationsecretvalue99',
  'rotatedsecretvalue77',
  OWNER_OTP,
];

function expectNoSecret(text: string) {
  for (const secret of [...SECRETS, ...SECRET_PARTS]) expect(text).not.toContain(secret);
}

/** Every way an error is commonly printed. */
function renderings(error: unknown): string {
  return [String(error), (error as Error).message, JSON.stringify(error), inspect(error, { depth: 10 })].join(
    '\n',
  );
}

let gateway: FakeGateway;
beforeEach(async () => {
  gateway = await new FakeGateway().start();
});
afterEach(() => gateway.close());

describe('debug hook', () => {
  it('gets method, path, status, duration and request id, with Authorization and secret fields redacted', async () => {
    const events: DebugEvent[] = [];
    const time = fakeTime();
    const client = createClient({
      baseUrl: gateway.url,
      debug: (event) => events.push(event),
      now: time.now,
      sleep: time.sleep,
    });
    gateway.on('POST', '/register', { status: 201, body: registerResponse });
    gateway.on('POST', '/organizations', { status: 201, body: organizationsResponse() });
    gateway.on('POST', '/owner-otp/claim', [
      envelope(503, 'dependency_unavailable', { retryable: true }),
      { status: 200, body: {} },
    ]);
    gateway.on('POST', '/keys/rotate', {
      status: 201,
      body: {
        key: { token: ROTATED_KEY, expires_at: '2027-01-01T00:00:00Z', scopes: [], rotated_from_key_id: 'k' },
      },
    });
    gateway.on('POST', '/mcp/invoke', { status: 200, body: succeeded('core.org.current.get', {}) });

    await client.register({ owner_email: 'o@example.com', app: { slug: 'abc', name: 'Ab' } });
    await client.createOrganization(
      { owner_email: 'o@example.com', organization: { name: 'Acme' } },
      { bootstrapKey: BOOTSTRAP_KEY },
    );
    await client.claimOwnerOtp({ otp: OWNER_OTP });
    await client.rotateKey();
    await client.invoke('core.org.current.get', {}, { approvalToken: 'approval-token-secret' });

    expectNoSecret(JSON.stringify(events));
    expectNoSecret(inspect(events, { depth: 10 }));
    const claim = events.filter((event) => event.path === '/owner-otp/claim');
    expect(claim.map((event) => event.type)).toEqual(['response', 'retry', 'response']);
    expect(claim[0]).toMatchObject({
      method: 'POST',
      status: 503,
      attempt: 1,
      errorCode: 'dependency_unavailable',
      requestId: expect.stringMatching(/^req-/),
      durationMs: expect.any(Number),
      headers: { Authorization: '[redacted]' },
      body: { otp: '[redacted]' },
    });
    expect(events.find((event) => event.path === '/mcp/invoke')?.body).toMatchObject({
      approval_token: '[redacted]',
    });
  });
});

describe('errors', () => {
  it('scrub keys and codes that a misbehaving server echoes into message, hint and details', async () => {
    gateway.on(
      'POST',
      '/owner-otp/claim',
      envelope(400, 'otp_invalid', {
        message: `code ${OWNER_OTP} is wrong for Bearer ${INSTALLATION_KEY}`,
        hint: `key ${INSTALLATION_KEY}`,
        details: [{ otp: OWNER_OTP, note: `sent ${OWNER_OTP}` }],
      }),
    );
    const client = createClient({ baseUrl: gateway.url, apiKey: INSTALLATION_KEY });
    const error = await client.claimOwnerOtp({ otp: OWNER_OTP }).catch((caught: unknown) => caught);
    expect(GatewayError.isGatewayError(error)).toBe(true);
    expectNoSecret(renderings(error));
    expect((error as GatewayError).message).toContain('[redacted]');
    // The key's public prefix may stay for support; the secret part never.
    expect((error as GatewayError).hint).toBe('key agw_ak_inst5678.[redacted]');
  });

  it('keep a proxy page that echoes the Authorization header out of the error', async () => {
    gateway.on('GET', '/org/current', {
      status: 400,
      text: `<html>Bad request: Authorization: Bearer ${INSTALLATION_KEY}</html>`,
      headers: { 'Content-Type': 'text/html' },
    });
    const client = createClient({ baseUrl: gateway.url, apiKey: INSTALLATION_KEY });
    const error = await client.currentOrg().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'unexpected_response', status: 400 });
    expectNoSecret(renderings(error));
  });

  it('connection errors do not carry the key', async () => {
    const client = createClient({
      baseUrl: 'http://gateway.invalid',
      apiKey: INSTALLATION_KEY,
      maxRetries: 0,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const error = await client.currentOrg().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'ConnectionError' });
    expectNoSecret(renderings(error));
  });

  it('a HandOverToHumanError does not carry the installation key', async () => {
    gateway.on('POST', '/register', { status: 201, body: registerResponse });
    gateway.on('POST', '/organizations', {
      status: 201,
      body: organizationsResponse({
        owner_otp_delivery: { status: 'suppressed', expires_at: '2026-11-22T05:00:00Z' },
      }),
    });
    const client = createClient({ baseUrl: gateway.url });
    const error = await client
      .onboard({
        register: { owner_email: 'o@example.com', app: { slug: 'abc', name: 'Ab' } },
        organization: { name: 'Acme' },
        getOwnerOtp: async () => OWNER_OTP,
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'HandOverToHumanError', reason: 'suppressed' });
    expectNoSecret(renderings(error));
  });
});

describe('the client object', () => {
  it('does not expose its key to inspect or JSON', () => {
    const client = createClient({ baseUrl: 'http://gateway.invalid', apiKey: INSTALLATION_KEY });
    client.setApiKey(ROTATED_KEY);
    expectNoSecret(inspect(client, { depth: 10, showHidden: true }));
    expectNoSecret(JSON.stringify(client));
  });
});
