import type { AgentOtpDelivery } from '@agw/contracts';
import { brand, hasBrand } from '../brand.js';
import { defaultSleep, type SleepLike } from '../options.js';
import { findOtpInMessage } from './extract.js';

/** Connection settings of the agent's mailbox (agent_email). */
export interface ImapConnectionConfig {
  host: string;
  /** Default 993 when `secure`, else 143. */
  port?: number;
  /** Implicit TLS. Default true. */
  secure?: boolean;
  auth: { user: string; pass?: string; accessToken?: string };
}

/** The part of an imapflow `ImapFlow` the reader uses (structural, so tests can pass a fake). */
export interface ImapClientLike {
  connect(): Promise<void>;
  getMailboxLock(path: string): Promise<{ release(): void }>;
  search(
    query: { header: Record<string, string> },
    options: { uid: true },
  ): Promise<number[] | false | undefined>;
  fetchOne(
    uid: string,
    query: { source: true },
    options: { uid: true },
  ): Promise<{ source?: Uint8Array | undefined } | false | undefined>;
  logout(): Promise<void>;
}

/** Options of {@link readAgentOtpFromMailbox}. */
export interface MailboxReaderOptions {
  imap: ImapConnectionConfig;
  /** Mailbox to search. Default `INBOX`. */
  mailbox?: string;
  /** Give up after this long. Default 5 minutes. */
  timeoutMs?: number;
  /** Pause between searches while the mail has not arrived. Default 10 s. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  now?: () => number;
  sleep?: SleepLike;
  /** Builds the IMAP client; defaults to imapflow's `ImapFlow` (loaded on first use). */
  createImapClient?: (config: ImapConnectionConfig) => ImapClientLike | Promise<ImapClientLike>;
}

/** No mail with the code arrived within `timeoutMs`. */
export class MailboxOtpTimeoutError extends Error {
  override readonly name = 'MailboxOtpTimeoutError';
  readonly correlationId: string;

  constructor(init: { correlationId: string; waitedMs: number }) {
    super(`No mail with "Ref: ${init.correlationId}" and a code line arrived within ${init.waitedMs} ms`);
    brand(this, 'MailboxOtpTimeoutError');
    this.correlationId = init.correlationId;
  }

  /** True for a MailboxOtpTimeoutError from any copy of this SDK. */
  static isMailboxOtpTimeoutError(value: unknown): value is MailboxOtpTimeoutError {
    return hasBrand(value, 'MailboxOtpTimeoutError');
  }
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_POLL_INTERVAL_MS = 10_000;

/**
 * Reads the agent code of `delivery` from the mailbox over IMAP: searches messages whose `Subject` header
 * contains `extraction.imap_search.contains` (`Ref: <correlation_id>`), newest first, and returns the `otp`
 * group of `extraction.code_regex` in the first matching body line. Searches again every `pollIntervalMs`
 * until `timeoutMs`. Needs the optional peer dependency `imapflow` unless `createImapClient` is given.
 */
export async function readAgentOtpFromMailbox(
  delivery: Pick<AgentOtpDelivery, 'correlation_id' | 'extraction'>,
  options: MailboxReaderOptions,
): Promise<string> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const imap = await (options.createImapClient ?? createImapFlowClient)(options.imap);
  await imap.connect();
  try {
    const startedAt = now();
    for (;;) {
      options.signal?.throwIfAborted();
      const otp = await searchOnce(imap, options.mailbox ?? 'INBOX', delivery);
      if (otp !== undefined) return otp;
      const waitedMs = now() - startedAt;
      if (waitedMs + pollIntervalMs > timeoutMs) {
        throw new MailboxOtpTimeoutError({ correlationId: delivery.correlation_id, waitedMs });
      }
      await sleep(pollIntervalMs, options.signal);
    }
  } finally {
    // A failed logout must not hide the code or the real error.
    await imap.logout().catch(() => undefined);
  }
}

/**
 * `getAgentOtp` for `client.onboard`: reads the code from the mailbox with these settings.
 * @example
 * await client.onboard({ ..., getAgentOtp: createMailboxOtpReader({ imap: { host, auth: { user, pass } } }) });
 */
export function createMailboxOtpReader(
  options: MailboxReaderOptions,
): (delivery: Pick<AgentOtpDelivery, 'correlation_id' | 'extraction'>) => Promise<string> {
  return (delivery) => readAgentOtpFromMailbox(delivery, options);
}

async function searchOnce(
  imap: ImapClientLike,
  mailbox: string,
  delivery: Pick<AgentOtpDelivery, 'extraction'>,
): Promise<string | undefined> {
  const { extraction } = delivery;
  const lock = await imap.getMailboxLock(mailbox);
  try {
    const found = await imap.search(
      { header: { [extraction.imap_search.header]: extraction.imap_search.contains } },
      { uid: true },
    );
    // Newest first: after a resend the latest mail is the authoritative one.
    for (const uid of [...(found || [])].sort((a, b) => b - a)) {
      const message = await imap.fetchOne(String(uid), { source: true }, { uid: true });
      if (!message || message.source === undefined) continue;
      const otp = await findOtpInMessage(message.source, extraction);
      if (otp !== undefined) return otp;
    }
    return undefined;
  } finally {
    lock.release();
  }
}

async function createImapFlowClient(config: ImapConnectionConfig): Promise<ImapClientLike> {
  let module: typeof import('imapflow');
  try {
    module = await import('imapflow');
  } catch (cause) {
    throw new Error(
      'Reading codes from a mailbox needs the optional peer dependency imapflow: npm install imapflow',
      {
        cause,
      },
    );
  }
  const secure = config.secure ?? true;
  return new module.ImapFlow({
    host: config.host,
    port: config.port ?? (secure ? 993 : 143),
    secure,
    auth: config.auth,
    logger: false,
  }) as unknown as ImapClientLike;
}
