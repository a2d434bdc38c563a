/**
 * Pins onboard(): the order of the calls, the keys each one uses, the spec's polling rule on a fake clock
 * (first poll +30 s, then every 60 s, hand-over at 15 min) and the immediate stops (blocked, suppressed,
 * inactive organization). Does not cover the IMAP reader (imap.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, HandOverToHumanError, type OnboardEvent, type OnboardOptions } from '../src/index.js';
import { envelope, FakeGateway, fakeTime, type Reply } from './fake-gateway.js';
import {
  AGENT_OTP,
  agentDelivery,
  BOOTSTRAP_KEY,
  INSTALLATION_ID,
  INSTALLATION_KEY,
  installation,
  ORG_ID,
  OWNER_OTP,
  organizationsResponse,
  orgCurrent,
  registerResponse,
} from './fixtures.js';

let gateway: FakeGateway;
let time: ReturnType<typeof fakeTime>;
let pollTimes: number[];

beforeEach(async () => {
  gateway = await new FakeGateway().start();
  time = fakeTime();
  pollTimes = [];
  gateway.on('POST', '/register', { status: 201, body: registerResponse });
  gateway.on('POST', '/organizations', { status: 201, body: organizationsResponse() });
  gateway.on('POST', '/owner-otp/claim', { status: 200, body: { installation: installation() } });
  gateway.on('POST', '/agent-otp/verify', { status: 200, body: { installation: installation() } });
});
afterEach(() => gateway.close());

/** /org/current answers `replies` in turn (the last repeats), recording when each poll came. */
function orgCurrentAnswers(replies: Reply[]) {
  gateway.on('GET', '/org/current', (_request, count) => {
    pollTimes.push(time.elapsed());
    return replies[Math.min(count, replies.length - 1)] as Reply;
  });
}

const pending412 = envelope(412, 'precondition_failed', { message: 'approval pending' });
const pending = { status: 200, body: orgCurrent('pending') };
const approved = { status: 200, body: orgCurrent('approved') };

function setup(overrides: Partial<OnboardOptions> = {}) {
  const client = createClient({ baseUrl: gateway.url, now: time.now, sleep: time.sleep });
  const events: OnboardEvent[] = [];
  const ownerAsks: number[] = [];
  const options: OnboardOptions = {
    register: { owner_email: 'owner@example.com', app: { slug: 'invoice-bot', name: 'Invoice Bot' } },
    organization: { name: 'Acme Ltd' },
    getOwnerOtp: async ({ attempt }) => {
      ownerAsks.push(attempt);
      return OWNER_OTP;
    },
    onStatus: (event) => events.push(event),
    ...overrides,
  };
  return { client, events, ownerAsks, run: () => client.onboard(options) };
}

const minutes = (value: number) => value * 60_000;

describe('onboard happy path', () => {
  it('registers, bootstraps, claims, then polls at +30 s and every 60 s until approved', async () => {
    orgCurrentAnswers([pending412, pending412, pending, approved]);
    const keys: string[] = [];
    const { run, events } = setup({ onInstallationKey: (key) => void keys.push(key.token) });
    const result = await run();

    expect(result.installationKey.token).toBe(INSTALLATION_KEY);
    expect(result.organization.id).toBe(ORG_ID);
    expect(result.installation.operator_approval_status).toBe('approved');
    expect(keys).toEqual([INSTALLATION_KEY]);
    expect(pollTimes).toEqual([30_000, 90_000, 150_000, 210_000]);

    expect(gateway.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /register',
      'POST /organizations',
      'POST /owner-otp/claim',
      'GET /org/current',
      'GET /org/current',
      'GET /org/current',
      'GET /org/current',
    ]);
    const [register, organizations, claim, poll] = gateway.requests;
    expect(register?.headers.authorization).toBeUndefined();
    expect(organizations?.headers.authorization).toBe(`Bearer ${BOOTSTRAP_KEY}`);
    expect(organizations?.body).toEqual({
      owner_email: 'owner@example.com',
      organization: { name: 'Acme Ltd' },
    });
    expect(claim?.headers.authorization).toBe(`Bearer ${INSTALLATION_KEY}`);
    expect(claim?.body).toEqual({ otp: OWNER_OTP });
    expect(poll?.headers['idempotency-key']).toBeUndefined();

    expect(events.map((event) => event.type)).toEqual([
      'registered',
      'organization_created',
      'owner_otp_claimed',
      'approval_wait_started',
      'approval_poll',
      'approval_poll',
      'approval_poll',
      'approved',
    ]);
    expect(events.filter((event) => event.type === 'approval_poll')).toEqual([
      {
        type: 'approval_poll',
        attempt: 1,
        outcome: 'precondition_failed',
        elapsedMs: 30_000,
        nextPollInMs: 60_000,
      },
      {
        type: 'approval_poll',
        attempt: 2,
        outcome: 'precondition_failed',
        elapsedMs: 90_000,
        nextPollInMs: 60_000,
      },
      { type: 'approval_poll', attempt: 3, outcome: 'pending', elapsedMs: 150_000, nextPollInMs: 60_000 },
    ]);
  });

  it('redeems the agent code from getAgentOtp when agent_email is set', async () => {
    const delivery = agentDelivery();
    gateway.on('POST', '/organizations', {
      status: 201,
      body: organizationsResponse({ agent_otp_delivery: delivery }),
    });
    orgCurrentAnswers([approved]);
    const seen: unknown[] = [];
    const { run } = setup({
      register: {
        owner_email: 'owner@example.com',
        agent_email: 'agent@example.com',
        app: { slug: 'invoice-bot', name: 'Invoice Bot' },
      },
      getAgentOtp: async (given) => {
        seen.push(given);
        return AGENT_OTP;
      },
    });
    await run();
    expect(seen).toEqual([delivery]);
    expect(gateway.calls('POST', '/organizations')[0]?.body).toMatchObject({
      agent_email: 'agent@example.com',
    });
    expect(gateway.calls('POST', '/agent-otp/verify')[0]?.body).toEqual({ otp: AGENT_OTP });
    expect(pollTimes).toEqual([30_000]);
  });

  it('refuses to start without getAgentOtp when agent_email is set, before any request', async () => {
    const { run } = setup({
      register: {
        owner_email: 'o@example.com',
        agent_email: 'a@example.com',
        app: { slug: 'abc', name: 'Ab' },
      },
    });
    await expect(run()).rejects.toThrow(TypeError);
    expect(gateway.requests).toHaveLength(0);
  });

  it('asks the owner again after otp_invalid, at most three times', async () => {
    gateway.on('POST', '/owner-otp/claim', [
      envelope(400, 'otp_invalid'),
      envelope(400, 'otp_invalid'),
      { status: 200, body: { installation: installation() } },
    ]);
    orgCurrentAnswers([approved]);
    const { run, ownerAsks } = setup();
    await run();
    expect(ownerAsks).toEqual([1, 2, 3]);

    gateway.on('POST', '/owner-otp/claim', envelope(400, 'otp_invalid'));
    const second = setup();
    await expect(second.run()).rejects.toMatchObject({ code: 'otp_invalid' });
    expect(second.ownerAsks).toEqual([1, 2, 3]);
  });

  it('does not poll early after a 503 (one poll per 60 s, no retries inside a poll)', async () => {
    orgCurrentAnswers([envelope(503, 'dependency_unavailable', { retryable: true }), approved]);
    const { run } = setup();
    await run();
    expect(pollTimes).toEqual([30_000, 90_000]);
  });
});

describe('onboard hand-over to a human', () => {
  it('gives up after 15 minutes of pending with approval_timeout: 15 polls, 60 s apart', async () => {
    orgCurrentAnswers([pending]);
    const { run } = setup();
    const error = await run().catch((caught: unknown) => caught);
    expect(HandOverToHumanError.isHandOverToHumanError(error)).toBe(true);
    expect(error).toMatchObject({
      reason: 'approval_timeout',
      organizationId: ORG_ID,
      installationId: INSTALLATION_ID,
      waitedMs: minutes(15),
    });
    expect(pollTimes).toEqual(Array.from({ length: 15 }, (_, index) => 30_000 + index * 60_000));
    expect(time.elapsed()).toBe(minutes(15));
  });

  it('stops at once on operator_approval_status blocked', async () => {
    orgCurrentAnswers([pending, { status: 200, body: orgCurrent('blocked') }]);
    const { run } = setup();
    await expect(run()).rejects.toMatchObject({ name: 'HandOverToHumanError', reason: 'blocked' });
    expect(pollTimes).toEqual([30_000, 90_000]);
  });

  it('stops at once on a 403 installation_blocked while polling', async () => {
    orgCurrentAnswers([envelope(403, 'installation_blocked')]);
    const { run } = setup();
    await expect(run()).rejects.toMatchObject({ reason: 'blocked', organizationId: ORG_ID });
    expect(pollTimes).toEqual([30_000]);
  });

  it('stops at once on an inactive organization in /org/current', async () => {
    orgCurrentAnswers([{ status: 200, body: orgCurrent('pending', { isActive: false }) }]);
    const { run } = setup();
    await expect(run()).rejects.toMatchObject({ reason: 'organization_inactive' });
    expect(pollTimes).toEqual([30_000]);
  });

  it('stops right after /organizations when the organization is inactive', async () => {
    gateway.on('POST', '/organizations', {
      status: 201,
      body: organizationsResponse({ organization: { id: ORG_ID, name: 'Acme Ltd', is_active: false } }),
    });
    const { run, ownerAsks } = setup();
    await expect(run()).rejects.toMatchObject({ reason: 'organization_inactive' });
    expect(ownerAsks).toEqual([]);
  });

  it('stops before asking for the code when owner_otp_delivery is suppressed, still handing out the key', async () => {
    gateway.on('POST', '/organizations', {
      status: 201,
      body: organizationsResponse({
        owner_otp_delivery: { status: 'suppressed', expires_at: '2026-11-22T05:00:00Z' },
      }),
    });
    const keys: string[] = [];
    const { run, ownerAsks } = setup({ onInstallationKey: (key) => void keys.push(key.token) });
    const error = await run().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: 'suppressed', delivery: 'owner' });
    expect(ownerAsks).toEqual([]);
    expect(gateway.calls('POST', '/owner-otp/claim')).toHaveLength(0);
    expect(keys).toEqual([INSTALLATION_KEY]);
  });

  it('stops when the agent mail delivery is suppressed', async () => {
    gateway.on('POST', '/organizations', {
      status: 201,
      body: organizationsResponse({ agent_otp_delivery: { ...agentDelivery(), status: 'suppressed' } }),
    });
    const { run } = setup({
      register: {
        owner_email: 'o@example.com',
        agent_email: 'a@example.com',
        app: { slug: 'abc', name: 'Ab' },
      },
      getAgentOtp: async () => AGENT_OTP,
    });
    await expect(run()).rejects.toMatchObject({ reason: 'suppressed', delivery: 'agent' });
  });

  it('lets the caller resume the wait with waitForApproval() on the same client', async () => {
    orgCurrentAnswers([pending]);
    const { client, run } = setup();
    await expect(run()).rejects.toMatchObject({ reason: 'approval_timeout' });
    orgCurrentAnswers([approved]);
    pollTimes = [];
    const resumedAt = time.elapsed();
    const current = await client.waitForApproval();
    expect(current.installation.operator_approval_status).toBe('approved');
    expect(pollTimes).toEqual([resumedAt + 30_000]);
    expect(gateway.calls('GET', '/org/current').at(-1)?.headers.authorization).toBe(
      `Bearer ${INSTALLATION_KEY}`,
    );
  });

  it('waitForApproval({ firstPollAfterMs: 0 }) polls at once on a resumed wait, then every 60 s', async () => {
    const client = createClient({
      baseUrl: gateway.url,
      apiKey: INSTALLATION_KEY,
      now: time.now,
      sleep: time.sleep,
    });
    orgCurrentAnswers([approved]);
    const current = await client.waitForApproval({ firstPollAfterMs: 0 });
    expect(current.installation.operator_approval_status).toBe('approved');
    expect(pollTimes).toEqual([0]);

    orgCurrentAnswers([pending412, approved]);
    pollTimes = [];
    const startedAt = time.elapsed();
    await client.waitForApproval({ firstPollAfterMs: 0 });
    expect(pollTimes).toEqual([startedAt, startedAt + 60_000]);
  });

  it('refuses a negative or non-numeric firstPollAfterMs before any request', async () => {
    const client = createClient({
      baseUrl: gateway.url,
      apiKey: INSTALLATION_KEY,
      now: time.now,
      sleep: time.sleep,
    });
    orgCurrentAnswers([approved]);
    await expect(client.waitForApproval({ firstPollAfterMs: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(client.waitForApproval({ firstPollAfterMs: Number.NaN })).rejects.toBeInstanceOf(RangeError);
    expect(gateway.calls('GET', '/org/current')).toHaveLength(0);
  });
});
