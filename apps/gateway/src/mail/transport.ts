import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { devMailboxDirectory } from '../checks/mail.js';

/** One file attached to a message. */
export interface MailAttachmentFile {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;
}

/** One plain-text message, optionally with attachments. */
export interface OutgoingMail {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly attachments?: readonly MailAttachmentFile[] | undefined;
}

/** Sends mail; resolves with the Message-ID once the server (or the dev mailbox) accepted it. */
export interface MailTransport {
  readonly kind: 'smtp' | 'dev_mailbox';
  send(mail: OutgoingMail): Promise<string>;
  close(): void;
}

/**
 * SMTP_URL set: nodemailer's SMTP transport. Unset: the dev mailbox, one RFC 822 `.eml` file per
 * message in DATA_DIR/mail named `<ISO time with : as ->-<Message-ID without <, > and @>.eml`
 * (what `agw mail list|show` reads).
 */
export function createMailTransport(options: {
  smtpUrl: string | undefined;
  dataDir: string;
}): MailTransport {
  if (options.smtpUrl) {
    const transporter = nodemailer.createTransport(options.smtpUrl);
    return {
      kind: 'smtp',
      async send(mail) {
        const messageId = newMessageId();
        await transporter.sendMail({
          ...mail,
          attachments: mail.attachments?.map((a) => ({ ...a })),
          messageId,
        });
        return messageId;
      },
      close: () => transporter.close(),
    };
  }
  const directory = devMailboxDirectory(options.dataDir);
  const streamer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'dev_mailbox',
    async send(mail) {
      const messageId = newMessageId();
      const date = new Date();
      const info = await streamer.sendMail({
        ...mail,
        attachments: mail.attachments?.map((a) => ({ ...a })),
        messageId,
        date,
      });
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const name = `${date.toISOString().replaceAll(':', '-')}-${messageId.replace(/[<>@]/g, '')}.eml`;
      await writeFile(join(directory, name), info.message as Buffer, { mode: 0o600 });
      return messageId;
    },
    close: () => streamer.close(),
  };
}

function newMessageId(): string {
  return `<${randomUUID()}@agent-gateway.local>`;
}
