import { readdir, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

/** One received message, parsed just enough for assertions. */
export interface ReceivedMail {
  readonly to: string;
  readonly subject: string;
  readonly messageId: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly raw: string;
}

/** Parses an RFC 822 message with 7bit or quoted-printable text (what the gateway sends). */
export function parseMail(raw: string): ReceivedMail {
  const text = raw.replaceAll('\r\n', '\n');
  const split = text.indexOf('\n\n');
  const headerBlock = text.slice(0, split).replace(/\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of headerBlock.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(split + 2);
  if ((headers['content-transfer-encoding'] ?? '').toLowerCase() === 'quoted-printable') {
    body = body
      .replace(/=\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  return {
    to: headers.to ?? '',
    subject: headers.subject ?? '',
    messageId: headers['message-id'] ?? '',
    headers,
    body,
    raw,
  };
}

/** A real SMTP server on 127.0.0.1 (random port) that keeps every message it receives. */
export interface SmtpSink {
  readonly url: string;
  readonly messages: ReceivedMail[];
  /** Resolves with the first message matching `predicate`, polling what has arrived. */
  waitFor(predicate: (mail: ReceivedMail) => boolean): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** Starts an {@link SmtpSink}. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push(parseMail(Buffer.concat(chunks).toString('utf8')));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor: (predicate) => waitUntil(() => messages.find(predicate)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every `.eml` file of the dev mailbox (DATA_DIR/mail), parsed, with its file name. */
export async function readDevMailbox(dataDir: string): Promise<Array<ReceivedMail & { file: string }>> {
  const directory = join(dataDir, 'mail');
  const files = (await readdir(directory).catch(() => [] as string[])).filter((name) =>
    name.endsWith('.eml'),
  );
  return Promise.all(
    files.sort().map(async (file) => ({ ...parseMail(await readFile(join(directory, file), 'utf8')), file })),
  );
}

/** Polls `probe` every 20 ms until it returns a value (the test's own timeout bounds the wait). */
export async function waitUntil<T>(probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One attachment of a multipart message, decoded. */
export interface ReceivedAttachment {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;
}

/**
 * The attachments of a message as nodemailer writes them (multipart/mixed, one level of
 * multipart/alternative at most, base64 or 7bit parts): enough to check what a domain attached.
 */
export function attachmentsOf(mail: ReceivedMail): ReceivedAttachment[] {
  const found: ReceivedAttachment[] = [];
  const visit = (headers: Record<string, string>, body: string) => {
    const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
    if (boundary) {
      for (const part of body.split(`--${boundary}`).slice(1)) {
        if (part.startsWith('--')) break;
        const parsed = parseMail(part.replace(/^\r?\n/, ''));
        visit(parsed.headers, parsed.body);
      }
      return;
    }
    const disposition = headers['content-disposition'] ?? '';
    const filename = /filename="?([^";]+)"?/i.exec(disposition)?.[1];
    if (!filename) return;
    const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
    const content =
      encoding === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64') : Buffer.from(body);
    found.push({
      filename,
      contentType: (headers['content-type'] ?? '').split(';')[0]?.trim() ?? '',
      content,
    });
  };
  visit(mail.headers, mail.body);
  return found;
}
