/**
 * Pins readAgentOtpFromMailbox: the IMAP call sequence (connect, lock, SUBJECT search, newest-first fetch,
 * release, logout), waiting for a late mail on a fake clock, the timeout, and one end-to-end run of the real
 * imapflow against an in-process fake IMAP server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMailboxOtpReader,
  type ImapClientLike,
  MailboxOtpTimeoutError,
  readAgentOtpFromMailbox,
} from '../src/imap/index.js';
import { fakeTime } from './fake-gateway.js';
import { FakeImapServer } from './fake-imap-server.js';
import { agentDelivery } from './fixtures.js';

const delivery = agentDelivery('c0ffee42');

function message(ref: string, code: string): string {
  return `Subject: Agent code Ref: ${ref}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nCode: ${code}\r\n`;
}

/** A fake imapflow client: `inbox` maps UID → raw message, `arrivals` adds mail after N searches. */
function fakeImap(
  inbox: Map<number, string>,
  arrivals: { afterSearches: number; uid: number; raw: string }[] = [],
) {
  const calls: string[] = [];
  let searches = 0;
  const client: ImapClientLike = {
    connect: async () => void calls.push('connect'),
    getMailboxLock: async (path) => {
      calls.push(`lock ${path}`);
      return { release: () => void calls.push('release') };
    },
    search: async (query, options) => {
      calls.push(`search ${JSON.stringify(query)} ${JSON.stringify(options)}`);
      for (const arrival of arrivals)
        if (arrival.afterSearches === searches) inbox.set(arrival.uid, arrival.raw);
      searches += 1;
      return [...inbox.keys()].filter((uid) => inbox.get(uid)?.includes(query.header.Subject ?? '\u0000'));
    },
    fetchOne: async (uid, query, options) => {
      calls.push(`fetch ${uid} ${JSON.stringify(query)} ${JSON.stringify(options)}`);
      const raw = inbox.get(Number(uid));
      return raw === undefined ? false : { source: new TextEncoder().encode(raw) };
    },
    logout: async () => void calls.push('logout'),
  };
  return { client, calls };
}

const imap = { host: 'imap.example.com', auth: { user: 'agent@example.com', pass: 'mail-password' } };

describe('readAgentOtpFromMailbox with a fake imapflow client', () => {
  it('searches the Subject for Ref: <correlation_id>, fetches newest first and logs out', async () => {
    const fake = fakeImap(
      new Map([
        [3, message('c0ffee42', '111111')],
        [7, message('c0ffee42', '222222')],
        [5, message('other', '333333')],
      ]),
    );
    const otp = await readAgentOtpFromMailbox(delivery, { imap, createImapClient: () => fake.client });
    expect(otp).toBe('222222');
    expect(fake.calls).toEqual([
      'connect',
      'lock INBOX',
      'search {"header":{"Subject":"Ref: c0ffee42"}} {"uid":true}',
      'fetch 7 {"source":true} {"uid":true}',
      'release',
      'logout',
    ]);
  });

  it('searches again every pollIntervalMs until the mail arrives', async () => {
    const time = fakeTime();
    const fake = fakeImap(new Map(), [{ afterSearches: 2, uid: 1, raw: message('c0ffee42', '444444') }]);
    const read = createMailboxOtpReader({
      imap,
      mailbox: 'Agents',
      pollIntervalMs: 5_000,
      now: time.now,
      sleep: time.sleep,
      createImapClient: () => fake.client,
    });
    await expect(read(delivery)).resolves.toBe('444444');
    expect(time.sleeps).toEqual([5_000, 5_000]);
    expect(fake.calls.filter((call) => call === 'lock Agents')).toHaveLength(3);
  });

  it('gives up after timeoutMs with MailboxOtpTimeoutError and still logs out', async () => {
    const time = fakeTime();
    const fake = fakeImap(new Map());
    const error = await readAgentOtpFromMailbox(delivery, {
      imap,
      timeoutMs: 30_000,
      pollIntervalMs: 10_000,
      now: time.now,
      sleep: time.sleep,
      createImapClient: () => fake.client,
    }).catch((caught: unknown) => caught);
    expect(MailboxOtpTimeoutError.isMailboxOtpTimeoutError(error)).toBe(true);
    expect(error).toMatchObject({ correlationId: 'c0ffee42' });
    expect(time.sleeps).toEqual([10_000, 10_000, 10_000]);
    expect(fake.calls.at(-1)).toBe('logout');
  });
});

describe('readAgentOtpFromMailbox with the real imapflow', () => {
  let server: FakeImapServer | undefined;
  afterEach(() => server?.close());

  it('reads the code over IMAP from an in-process server', async () => {
    server = await new FakeImapServer().start();
    server.add(message('other-ref', '000000'));
    server.add(message('c0ffee42', '246810'));
    const otp = await readAgentOtpFromMailbox(delivery, {
      imap: { host: '127.0.0.1', port: server.port, secure: false, auth: { user: 'agent', pass: 'secret' } },
      timeoutMs: 5_000,
    });
    expect(otp).toBe('246810');
    const commands = server.commands.map((line) => line.split(' ').slice(1).join(' '));
    expect(commands).toContain('LOGIN [credentials]');
    expect(commands.some((line) => /^UID SEARCH .*HEADER .*Subject.*"Ref: c0ffee42"/i.test(line))).toBe(true);
    expect(commands.some((line) => /^UID FETCH 2 /i.test(line))).toBe(true);
    expect(commands.at(-1)).toBe('LOGOUT');
  });
});
