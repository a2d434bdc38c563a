import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { connect as connectTcp, type Socket } from 'node:net';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';

/** The mail transport health: the dev mailbox directory, or an SMTP server answering its greeting. */
export interface MailCheck {
  readonly status: 'ok' | 'down';
  readonly transport: 'smtp' | 'dev_mailbox';
}

const SMTP_TIMEOUT_MS = 1500;

/** Directory of the dev mailbox (`.eml` files) under DATA_DIR. */
export function devMailboxDirectory(dataDir: string): string {
  return join(dataDir, 'mail');
}

/**
 * Checks mail delivery: with SMTP_URL, opens a connection and waits for the `220` greeting (then says
 * QUIT); without it, makes sure DATA_DIR/mail exists and is writable.
 */
export async function checkMail(options: {
  smtpUrl: string | undefined;
  dataDir: string;
}): Promise<MailCheck> {
  if (options.smtpUrl) {
    const ok = await smtpGreets(new URL(options.smtpUrl));
    return { status: ok ? 'ok' : 'down', transport: 'smtp' };
  }
  const directory = devMailboxDirectory(options.dataDir);
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await access(directory, constants.W_OK);
    return { status: 'ok', transport: 'dev_mailbox' };
  } catch {
    return { status: 'down', transport: 'dev_mailbox' };
  }
}

function smtpGreets(url: URL): Promise<boolean> {
  const secure = url.protocol === 'smtps:';
  const port = Number(url.port || (secure ? 465 : 587));
  return new Promise((resolve) => {
    const socket: Socket = secure
      ? connectTls({ host: url.hostname, port, servername: url.hostname })
      : connectTcp({ host: url.hostname, port });
    let received = '';
    let settled = false;
    const finish = (ok: boolean) => {
      if (settled) return;
      settled = true;
      socket.setTimeout(0);
      // Say goodbye politely to a live server; drop anything else.
      if (ok) socket.end('QUIT\r\n', () => socket.destroy());
      else socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(SMTP_TIMEOUT_MS, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\n')) finish(received.startsWith('220'));
    });
  });
}
