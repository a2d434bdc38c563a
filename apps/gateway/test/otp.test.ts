// One-time codes over real HTTP with the dev mailbox (no SMTP_URL): wrong, expired, reused and
// brute-forced codes, resend voiding and cooldown, suppression, and codes that never cross purpose
// or installation. Codes are read from the .eml files the gateway writes to DATA_DIR/mail.
import { extractOtpFromBody } from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import { onboard } from './helpers/access-client.js';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';
import { readDevMailbox, waitUntil } from './helpers/mail-sink.js';

const gateway = useGateway();

/** Waits for the `count`-th mail to `to` in the dev mailbox and returns its code. */
async function nthCode(to: string, count = 1): Promise<string> {
  const mails = await waitUntil(async () => {
    const found = (await readDevMailbox(gateway.dataDir)).filter((mail) => mail.to.includes(to));
    return found.length >= count ? found : undefined;
  });
  return extractOtpFromBody(mails[count - 1]!.body)!;
}

/** Lets the next resend pass the 60 s cooldown by ageing the codes (a test clock for the database). */
async function ageCodes(installationId: string) {
  await gateway
    .knex('otp_codes')
    .where({ installation_id: installationId })
    .update({
      created_at: gateway.knex.raw("created_at - interval '2 minutes'"),
    });
}

const claim = (key: string, otp: string) => gateway.client.post('/owner-otp/claim', { otp }, { key });
const wrongOf = (code: string) => String((Number(code) + 1) % 1e8).padStart(8, '0');

describe('one-time codes', () => {
  it('the dev mailbox holds one RFC 822 file per message with the standard headers', async () => {
    const flow = await onboard(gateway.client);
    const mails = await waitUntil(async () => {
      const found = (await readDevMailbox(gateway.dataDir)).filter((m) =>
        m.to.includes(flow.body.owner_email),
      );
      return found.length > 0 ? found : undefined;
    });
    const mail = mails[0]!;
    expect(mail.file).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[^<>@]+\.eml$/);
    for (const header of ['from', 'to', 'subject', 'date', 'message-id'])
      expect(mail.headers[header]).toBeTruthy();
    expect(extractOtpFromBody(mail.body)).toMatch(/^\d{8}$/);
  });

  it('wrong → 400 otp_invalid; right → 200; the same code again → 409 otp_already_used', async () => {
    const flow = await onboard(gateway.client);
    const code = await nthCode(flow.body.owner_email);
    expectEnvelope((await claim(flow.installationKey, wrongOf(code))).json, 'otp_invalid');
    expect((await claim(flow.installationKey, code)).status).toBe(200);
    const again = await claim(flow.installationKey, code);
    expect(again.status).toBe(409);
    expectEnvelope(again.json, 'otp_already_used');
  });

  it('an expired code → 400 otp_expired', async () => {
    const flow = await onboard(gateway.client);
    const code = await nthCode(flow.body.owner_email);
    await gateway
      .knex('otp_codes')
      .where({ installation_id: flow.installationId })
      .update({ expires_at: gateway.knex.raw("now() - interval '1 second'") });
    const expired = await claim(flow.installationKey, code);
    expect(expired.status).toBe(400);
    expectEnvelope(expired.json, 'otp_expired');
  });

  it('50 concurrent wrong codes: at most 5 evaluated, then even the right code is refused until a resend', async () => {
    const flow = await onboard(gateway.client);
    const code = await nthCode(flow.body.owner_email);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => claim(flow.installationKey, String(index).padStart(8, '9'))),
    );
    const codes = answers.map((answer) => answer.json.error.code);
    expect(codes.filter((c) => c === 'otp_invalid').length).toBeLessThanOrEqual(5);
    expect(codes.filter((c) => c === 'otp_attempts_exceeded').length).toBeGreaterThanOrEqual(45);
    const right = await claim(flow.installationKey, code);
    expect(right.status).toBe(403);
    expect(expectEnvelope(right.json, 'otp_attempts_exceeded').hint).toMatch(/resend/);

    await ageCodes(flow.installationId);
    const resent = await gateway.client.post('/owner-otp/resend', {}, { key: flow.installationKey });
    expect(resent.status).toBe(200);
    expectSchema('OwnerOtpResendResponse', resent.json);
    expect((await claim(flow.installationKey, await nthCode(flow.body.owner_email, 2))).status).toBe(200);
  });

  it('resend voids the earlier code at once, is throttled, and gives the agent a new correlation_id', async () => {
    const flow = await onboard(gateway.client, { agent: true });
    const firstOwner = await nthCode(flow.body.owner_email);
    const cooldown = await gateway.client.post('/owner-otp/resend', {}, { key: flow.installationKey });
    expect(cooldown.status).toBe(409);
    const error = expectEnvelope(cooldown.json, 'otp_resend_cooldown');
    expect(error.retryable).toBe(true);
    expect(cooldown.headers.get('retry-after')).toBe(String(error.retry_after_seconds));
    expect(error.retry_after_seconds).toBeGreaterThan(0);

    await ageCodes(flow.installationId);
    const agentResend = await gateway.client.post('/agent-otp/resend', {}, { key: flow.installationKey });
    expect(agentResend.status).toBe(200);
    expectSchema('AgentOtpResendResponse', agentResend.json);
    expect(agentResend.json.agent_otp_delivery.correlation_id).not.toBe(
      flow.organization.json.agent_otp_delivery.correlation_id,
    );
    const ownerResend = await gateway.client.post('/owner-otp/resend', {}, { key: flow.installationKey });
    expect(ownerResend.status).toBe(200);
    expectEnvelope((await claim(flow.installationKey, firstOwner)).json, 'otp_invalid');
    expect((await claim(flow.installationKey, await nthCode(flow.body.owner_email, 2))).status).toBe(200);
    const resendAfterClaim = await gateway.client.post(
      '/owner-otp/resend',
      {},
      { key: flow.installationKey },
    );
    expectEnvelope(resendAfterClaim.json, 'conflict');
  });

  it('a suppressed address gets no mail and the delivery says suppressed; so does a resend beyond the cap', async () => {
    const flow = await onboard(gateway.client);
    await nthCode(flow.body.owner_email);
    await gateway
      .knex('mail_suppressions')
      .insert({ email: flow.body.owner_email, reason: 'test', created_by: 'test' });
    await ageCodes(flow.installationId);
    const resent = await gateway.client.post('/owner-otp/resend', {}, { key: flow.installationKey });
    expect(resent.json.owner_otp_delivery.status).toBe('suppressed');
    await gateway.knex('mail_suppressions').where({ email: flow.body.owner_email }).delete();

    // The hourly cap (5 codes) turns further resends into `suppressed` without mail.
    const statuses: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      await ageCodes(flow.installationId);
      statuses.push(
        (await gateway.client.post('/owner-otp/resend', {}, { key: flow.installationKey })).json
          .owner_otp_delivery.status,
      );
    }
    expect(statuses.filter((status) => status === 'suppressed').length).toBeGreaterThan(0);
    // Exactly the non-suppressed codes were staged and mailed; suppressed ones never were.
    const codes = await gateway
      .knex('otp_codes')
      .where({ installation_id: flow.installationId, purpose: 'owner' });
    const mailable = codes.filter((row) => row.delivery_status !== 'suppressed').length;
    expect(mailable).toBeLessThan(codes.length);
    const staged = await gateway.knex('mail_outbox').where({ to_address: flow.body.owner_email });
    expect(staged).toHaveLength(mailable);
    const mailed = await waitUntil(async () => {
      const found = (await readDevMailbox(gateway.dataDir)).filter((m) =>
        m.to.includes(flow.body.owner_email),
      );
      return found.length >= mailable ? found : undefined;
    });
    expect(mailed).toHaveLength(mailable);
  });

  it('codes never cross purpose or installation', async () => {
    const a = await onboard(gateway.client, { agent: true });
    const b = await onboard(gateway.client, { agent: true });
    const ownerA = await nthCode(a.body.owner_email);
    const agentA = await nthCode(a.body.agent_email!);
    expectEnvelope(
      (await gateway.client.post('/agent-otp/verify', { otp: ownerA }, { key: a.installationKey })).json,
      'otp_invalid',
    );
    expectEnvelope((await claim(a.installationKey, agentA)).json, 'otp_invalid');
    expectEnvelope((await claim(b.installationKey, ownerA)).json, 'otp_invalid');
    expect((await claim(a.installationKey, ownerA)).status).toBe(200);
  });
});
