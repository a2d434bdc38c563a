/**
 * A tiny plain-text IMAP4rev1 responder on 127.0.0.1 (port 0), enough for imapflow's connect, LOGIN, SELECT,
 * UID SEARCH HEADER, UID FETCH BODY.PEEK[] and LOGOUT. Messages can be added while a client is connected.
 * Records every command line so tests can assert the call sequence. Not a real server.
 */
import { createServer, type Server, type Socket } from 'node:net';

export class FakeImapServer {
  readonly commands: string[] = [];
  private readonly messages: string[] = [];
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  port = 0;

  /** Adds a raw RFC 5322 message; its UID is its 1-based position. */
  add(raw: string): void {
    this.messages.push(raw);
  }

  async start(): Promise<this> {
    this.server = createServer((socket) => this.serve(socket));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.write('* OK [CAPABILITY IMAP4rev1] fake imap ready\r\n');
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        this.commands.push(line.replace(/^(\S+ LOGIN) .*$/i, '$1 [credentials]'));
        socket.write(this.answer(line));
      }
    });
  }

  private answer(line: string): string {
    const [tag = '*', rawCommand = ''] = line.split(' ', 2);
    const command = rawCommand.toUpperCase();
    const rest = line.slice(tag.length + rawCommand.length + 2);
    const ok = (text = 'done') => `${tag} OK ${text}\r\n`;
    if (command === 'CAPABILITY') return `* CAPABILITY IMAP4rev1\r\n${ok()}`;
    if (command === 'LOGIN') return ok('[CAPABILITY IMAP4rev1] logged in');
    if (command === 'SELECT' || command === 'EXAMINE') {
      return [
        `* ${this.messages.length} EXISTS`,
        '* 0 RECENT',
        '* FLAGS (\\Seen)',
        '* OK [UIDVALIDITY 1] ok',
        `* OK [UIDNEXT ${this.messages.length + 1}] ok`,
        `${tag} OK [READ-WRITE] selected`,
        '',
      ].join('\r\n');
    }
    if (command === 'LOGOUT') return `* BYE bye\r\n${ok()}`;
    if (command === 'UID' && /^SEARCH /i.test(rest)) {
      const wanted = /HEADER\s+"?Subject"?\s+"((?:[^"\\]|\\.)*)"/i.exec(rest)?.[1] ?? '';
      const uids = this.messages
        .map((raw, index) => ({ uid: index + 1, subject: /^Subject: (.*)$/im.exec(raw)?.[1] ?? '' }))
        .filter((message) => message.subject.includes(wanted))
        .map((message) => message.uid);
      return `* SEARCH${uids.map((uid) => ` ${uid}`).join('')}\r\n${ok()}`;
    }
    if (command === 'UID' && /^FETCH /i.test(rest)) {
      const uid = Number(/^FETCH (\d+)/i.exec(rest)?.[1]);
      const raw = this.messages[uid - 1];
      if (raw === undefined) return ok();
      return `* ${uid} FETCH (UID ${uid} BODY[] {${Buffer.byteLength(raw, 'latin1')}}\r\n${raw})\r\n${ok()}`;
    }
    return ok();
  }
}
