// The operator's side of a real onboarding over HTTP, on the dev mailbox (no SMTP_URL): approval is
// refused until the owner code and then the agent mailbox code are redeemed, then succeeds, and
// /org/current shows operator_approved_at. The onboarding endpoints themselves are pinned elsewhere.
import { extractOtpFromBody } from '@agw/contracts';
import { type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, onboard } from './helpers/access-client.js';
import { adminFetch, readOperatorKeyFile } from './helpers/admin-fixtures.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { expectEnvelope } from './helpers/http.js';
import { captureLog } from './helpers/log-capture.js';
import { readDevMailbox, waitUntil } from './helpers/mail-sink.js';

let environment: TestEnvironment;
let gateway: GatewayHandle;
let operatorKey: string;

beforeAll(async () => {
  environment = await createTestEnvironment();
  const env = { ...environment.env };
  delete env.SMTP_URL;
  gateway = await startGateway(loadConfig(env), { logger: captureLog().logger });
  operatorKey = await readOperatorKeyFile(environment.dataDir);
});

afterAll(async () => {
  await gateway?.close();
  await environment?.cleanup();
});

async function codeFor(to: string): Promise<string> {
  const mail = await waitUntil(async () =>
    (await readDevMailbox(environment.dataDir)).find((message) => message.to.includes(to)),
  );
  const code = extractOtpFromBody(mail.body);
  if (!code) throw new Error(`no code line in the mail to ${to}`);
  return code;
}

describe('operator approval of a real onboarding', () => {
  it('is refused until both codes are redeemed, then approves and shows in /org/current', async () => {
    const client = new AccessClient(gateway.url);
    const flow = await onboard(client, { agent: true });
    const approve = () =>
      adminFetch(`${gateway.url}/admin/installations/${flow.installationId}/approve`, operatorKey, {
        method: 'POST',
      });

    const listed = await adminFetch(`${gateway.url}/admin/installations?status=pending`, operatorKey);
    expect(listed.body.installations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: flow.installationId,
          owner_email: flow.body.owner_email,
          agent_email: flow.body.agent_email,
          owner_verified: false,
          agent_email_verification_status: 'pending',
          app: expect.objectContaining({ slug: flow.body.app.slug }),
        }),
      ]),
    );
    const early = await approve();
    expect(early.status).toBe(409);
    expect(expectEnvelope(early.body, 'conflict').message).toMatch(/owner has not redeemed/);

    const ownerCode = await codeFor(flow.body.owner_email);
    const claimed = await client.post('/owner-otp/claim', { otp: ownerCode }, { key: flow.installationKey });
    expect(claimed.status).toBe(200);
    const middle = await approve();
    expect(middle.status).toBe(409);
    expect(expectEnvelope(middle.body, 'conflict').message).toMatch(/agent mailbox code/);

    const agentCode = await codeFor(flow.body.agent_email as string);
    const verified = await client.post(
      '/agent-otp/verify',
      { otp: agentCode },
      { key: flow.installationKey },
    );
    expect(verified.status).toBe(200);
    const approved = await approve();
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      changed: true,
      installation: { operator_approval_status: 'approved' },
    });

    const current = await client.get('/org/current', flow.installationKey);
    expect(current.status).toBe(200);
    expect(JSON.stringify(current.json)).toContain('operator_approved_at');
    expect(current.json.installation.operator_approved_at).toEqual(expect.any(String));
  });
});
