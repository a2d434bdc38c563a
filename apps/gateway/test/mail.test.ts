// The mail outbox: a send that fails (SMTP server down) keeps the mail queued and encrypted; a later
// drain delivers it to a real SMTP server, marks it sent and erases the ciphertext; attempts are
// bounded.
import { createServer } from 'node:net';
import { extractOtpFromBody } from '@agw/contracts';
import {
  createLogger,
  createMailTransport,
  type GatewayHandle,
  loadConfig,
  loadServerSecret,
  MailOutbox,
  SecretBox,
  startGateway,
} from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, onboard } from './helpers/access-client.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { type SmtpSink, startSmtpSink, waitUntil } from './helpers/mail-sink.js';

let environment: TestEnvironment;
let gateway: GatewayHandle;
let client: AccessClient;
let sink: SmtpSink;
let box: SecretBox;

async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  environment = await createTestEnvironment();
  const config = loadConfig({ ...environment.env, SMTP_URL: `smtp://127.0.0.1:${await deadPort()}` });
  gateway = await startGateway(config);
  client = new AccessClient(gateway.url);
  sink = await startSmtpSink();
  box = new SecretBox(loadServerSecret(config));
});

afterAll(async () => {
  await gateway?.close();
  await sink?.close();
  await environment?.cleanup();
});

const silent = createLogger({ level: 'silent' });

describe('mail outbox', () => {
  it('a failed send stays queued and encrypted; the drain delivers it and erases the ciphertext', async () => {
    const flow = await onboard(client);
    expect(flow.organization.json.owner_otp_delivery.status).toBe('queued');
    const failed = await waitUntil(async () => {
      const row = await gateway.knex('mail_outbox').where({ to_address: flow.body.owner_email }).first();
      return row?.last_error ? row : undefined;
    });
    expect(failed).toMatchObject({ status: 'queued', attempts: 1 });
    expect(failed.body_ciphertext).not.toBeNull();

    await gateway.knex('mail_outbox').where({ id: failed.id }).update({ locked_until: null });
    const outbox = new MailOutbox(
      gateway.knex,
      box,
      createMailTransport({ smtpUrl: sink.url, dataDir: environment.dataDir }),
      'Agent Gateway <agw@example.com>',
      silent,
    );
    expect(await outbox.drain()).toBe(1);
    const mail = await sink.waitFor((m) => m.to.includes(flow.body.owner_email));
    const sent = await gateway.knex('mail_outbox').where({ id: failed.id }).first();
    expect(sent).toMatchObject({ status: 'sent', body_ciphertext: null, message_id: mail.messageId });
    const code = await gateway.knex('otp_codes').where({ id: sent.otp_code_id }).first('delivery_status');
    expect(code.delivery_status).toBe('sent');
    const claimed = await client.post(
      '/owner-otp/claim',
      { otp: extractOtpFromBody(mail.body) },
      { key: flow.installationKey },
    );
    expect(claimed.status).toBe(200);
  });

  it('after 5 failed attempts a mail is marked failed and no longer retried', async () => {
    const flow = await onboard(client);
    const row = await waitUntil(async () => {
      const found = await gateway.knex('mail_outbox').where({ to_address: flow.body.owner_email }).first();
      return found?.last_error ? found : undefined;
    });
    await gateway.knex('mail_outbox').where({ id: row.id }).update({ attempts: 4, locked_until: null });
    const broken = {
      kind: 'smtp' as const,
      send: () => Promise.reject(new Error('connection refused')),
      close: () => {},
    };
    const outbox = new MailOutbox(gateway.knex, box, broken, 'agw@example.com', silent);
    expect(await outbox.drain()).toBe(0);
    expect((await gateway.knex('mail_outbox').where({ id: row.id }).first()).status).toBe('failed');
    await gateway.knex('mail_outbox').where({ id: row.id }).update({ locked_until: null });
    expect(await outbox.drain()).toBe(0);
    expect((await gateway.knex('mail_outbox').where({ id: row.id }).first()).attempts).toBe(5);
  });
});
