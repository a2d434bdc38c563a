import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readMail } from '@agw/client/imap';
import { EXIT, ExitError } from './io.js';

/** One message of the dev mailbox (DATA_DIR/mail/*.eml, written by the gateway without SMTP_URL). */
export interface MailboxMessage {
  /** The file name without `.eml`: `<ISO time, ':' as '-'>-<message id>`; what `mail show` takes. */
  readonly id: string;
  readonly file: string;
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly date: string;
  readonly message_id: string;
}

/** A message with its decoded text body. */
export interface MailboxMessageWithBody extends MailboxMessage {
  readonly body: string;
}

/** The dev mailbox directory under a DATA_DIR. */
export function mailboxDir(dataDir: string): string {
  return join(dataDir, 'mail');
}

/** Every message of the mailbox, oldest first (file names start with the send time). */
export async function listMailbox(dataDir: string): Promise<MailboxMessage[]> {
  const directory = mailboxDir(dataDir);
  const names = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const files = names.filter((name) => name.endsWith('.eml')).sort();
  return Promise.all(files.map(async (name) => (await readMessage(directory, name)).message));
}

/**
 * One message by id: the exact id, or a fragment (e.g. the message-id part) that matches exactly one
 * file. Exit 2 when nothing or more than one message matches.
 */
export async function findMailboxMessage(dataDir: string, id: string): Promise<MailboxMessageWithBody> {
  const directory = mailboxDir(dataDir);
  const all = await listMailbox(dataDir);
  const exact = all.find((message) => message.id === id || message.file === id);
  const matches = exact
    ? [exact]
    : all.filter((message) => message.id.includes(id) || message.message_id.includes(id));
  if (matches.length === 0) {
    throw new ExitError(EXIT.usage, `no message '${id}' in ${directory} (agw mail list shows the ids)`);
  }
  if (matches.length > 1) {
    throw new ExitError(EXIT.usage, `'${id}' matches ${matches.length} messages; give more of the id`);
  }
  const { message, body } = await readMessage(directory, (matches[0] as MailboxMessage).file);
  return { ...message, body };
}

async function readMessage(
  directory: string,
  file: string,
): Promise<{ message: MailboxMessage; body: string }> {
  const { text, ...headers } = await readMail(new Uint8Array(await readFile(join(directory, file))));
  return { message: { id: file.replace(/\.eml$/, ''), file, ...headers }, body: text };
}
