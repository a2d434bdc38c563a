// Issue 29, build 3: with OPERATOR_EMAIL the operators learn by mail that an installation or a run
// approval waits, with a console link; a burst is one mail and one digest, not a mail each. Real SMTP.
import { randomBytes } from 'node:crypto';
import { type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { MailOutbox } from '../src/mail/outbox.js';
import { createMailTransport } from '../src/mail/transport.js';
import { createOperatorNotices } from '../src/operator-notices/notices.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import { AccessClient, onboard } from './helpers/access-client.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { type ReceivedMail, type SmtpSink, startSmtpSink, waitUntil } from './helpers/mail-sink.js';

const vault = demoCapability<{ door?: string }, { opened: string }>(
  {
    id: 'demo.vault.open',
    risk_level: 'high',
    input_schema: { type: 'object', properties: { door: { type: 'string' } }, additionalProperties: false },
  },
  async (input) => ({ opened: input.door ?? 'main' }),
);
const OPERATORS = ['ops@example.com', 'night-shift@example.com'];
const DIGEST_SECONDS = 3600;
const secret = randomBytes(32);

let sink: SmtpSink;
let environment: TestEnvironment;
let gateway: GatewayHandle;
let client: AccessClient;

beforeAll(async () => {
  sink = await startSmtpSink();
  environment = await createTestEnvironment();
  gateway = await startGateway(
    loadConfig({
      ...environment.env,
      SMTP_URL: sink.url,
      SECRET_KEY: secret.toString('hex'),
      OPERATOR_EMAIL: OPERATORS.join(', '),
      OPERATOR_DIGEST_SECONDS: String(DIGEST_SECONDS),
    }),
    withCapabilities(vault),
  );
  client = new AccessClient(gateway.url);
});

afterAll(async () => {
  await gateway?.close();
  await environment?.cleanup();
  await sink?.close();
});

const operatorMails = () => sink.messages.filter((mail) => OPERATORS.includes(mail.to));
const linkIn = (mail: ReceivedMail) => /https?:\/\/\S+\/console\/\S+/.exec(mail.body)?.[0] ?? '';

/** Lets the next notice be mailed at once: the last operator mail is moved out of the window. */
async function ageLastMail(): Promise<void> {
  await gateway
    .knex('operator_notices')
    .whereNotNull('mailed_at')
    .update({
      mailed_at: gateway.knex.raw(`mailed_at - interval '${DIGEST_SECONDS + 1} seconds'`),
    });
}

/** The periodic digest as it runs in the gateway, with a clock one window ahead (the test clock). */
async function runDigest(): Promise<number> {
  const logger = createLogger({ level: 'silent' });
  const box = new SecretBox(secret);
  const transport = createMailTransport({ smtpUrl: sink.url, dataDir: environment.dataDir });
  const outbox = new MailOutbox(gateway.knex, box, transport, 'Agent Gateway <agw@example.com>', logger);
  const notices = createOperatorNotices({
    knex: gateway.knex,
    box,
    outbox,
    recipients: OPERATORS,
    digestSeconds: DIGEST_SECONDS,
    publicBaseUrl: gateway.url,
    logger,
    now: () => new Date(Date.now() + (DIGEST_SECONDS + 1) * 1000),
  });
  const listed = await notices.digest();
  await outbox.idle();
  transport.close();
  return listed;
}

let installationKey: string;

describe('a new installation', () => {
  it('mails every operator address at once with a console link that opens', async () => {
    const flow = await onboard(client);
    installationKey = flow.installationKey;
    await waitUntil(() => (operatorMails().length >= 2 ? true : undefined));
    const mails = operatorMails();
    expect(mails.map((mail) => mail.to).sort()).toEqual([...OPERATORS].sort());
    const [mail] = mails;
    expect(mail?.subject).toBe('Agent Gateway: installation waiting for approval');
    expect(mail?.body).toContain(flow.body.app.slug);
    // No secret leaves in it: neither the installation key nor the bootstrap key.
    expect(mail?.raw).not.toContain(flow.installationKey.split('.')[1]);
    expect(mail?.raw).not.toContain(flow.bootstrapKey.split('.')[1]);
    const link = linkIn(mail as ReceivedMail);
    expect(link).toBe(`${gateway.url}/console/installations`);
  });
});

describe('run approvals', () => {
  it('a lone approval is mailed at once, its link opens the console (sign-in)', async () => {
    await gateway
      .knex('installations')
      .update({ owner_verified_at: gateway.knex.fn.now(), operator_approval_status: 'approved' });
    await ageLastMail();
    const before = operatorMails().length;
    const answer = await client.post(
      '/mcp/invoke',
      { id: 'demo.vault.open', params: { door: 'iban DE89370400440532013000' } },
      { idem: null, key: installationKey },
    );
    expect(answer.json.status).toBe('pending_approval');
    const approvalId = answer.json.approval.approval_id as string;
    await waitUntil(() => (operatorMails().length >= before + 2 ? true : undefined));
    const mail = operatorMails().at(-1) as ReceivedMail;
    expect(mail.subject).toBe('Agent Gateway: run waiting for approval');
    expect(mail.body).toContain('demo.vault.open@');
    expect(mail.body).toContain('risk high');
    // Params and the approval token stay out of the mail.
    expect(mail.raw).not.toContain('DE89370400440532013000');
    expect(mail.raw).not.toContain(answer.json.approval.approval_token);
    const link = linkIn(mail);
    expect(link).toBe(`${gateway.url}/console/approvals#approval-${approvalId}`);
    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    expect(opened.url).toBe(`${gateway.url}/console`);
    expect(await opened.text()).toContain('operator_key');
  });

  it('a burst of approvals is one mail at once and one digest listing the rest, per address', async () => {
    await ageLastMail();
    const before = operatorMails().length;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        client.post(
          '/mcp/invoke',
          { id: 'demo.vault.open', params: { door: `burst-${index}` } },
          { idem: null, key: installationKey },
        ),
      ),
    );
    expect(answers.every((answer) => answer.json.status === 'pending_approval')).toBe(true);
    await waitUntil(() => (operatorMails().length >= before + 2 ? true : undefined));
    // Everything after the first waited for the digest (none was mailed on its own).
    expect(await runDigest()).toBe(11);
    const all = operatorMails().slice(before);
    expect(all).toHaveLength(4);
    const digest = all.filter((mail) => mail.subject === 'Agent Gateway: 11 things waiting for approval');
    expect(digest.map((mail) => mail.to).sort()).toEqual([...OPERATORS].sort());
    const links = digest[0]?.body.match(/\/console\/approvals#approval-[0-9a-f-]{36}/g) ?? [];
    expect(new Set(links).size).toBe(11);
    // Nothing left: the next tick sends nothing.
    expect(await runDigest()).toBe(0);
  });

  // PostgreSQL only: PGlite's one session cannot hold the lock while the gateway works.
  it.skipIf(process.env.DATABASE_URL === undefined)(
    'a new approval never waits on another instance deciding a mail: its notice goes to the digest',
    async () => {
      await ageLastMail();
      const before = operatorMails().length;
      await gateway.knex.transaction(async (trx) => {
        // Another instance deciding an operator mail right now.
        await trx.raw("select pg_advisory_xact_lock(hashtext('agw.operator-notices'))");
        const answer = await client.post(
          '/mcp/invoke',
          { id: 'demo.vault.open', params: { door: 'while-locked' } },
          { idem: null, key: installationKey },
        );
        expect(answer.json.status).toBe('pending_approval');
      });
      expect(operatorMails()).toHaveLength(before);
      expect(await runDigest()).toBe(1);
    },
  );
});
