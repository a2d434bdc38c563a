import { connect } from 'node:net';

/** What came back on a raw connection. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Milliseconds from the first byte written to the whole answer read. */
  readonly ms: number;
  /** Resolves once the server closed the connection (or rejects after `closeWithinMs`). */
  readonly closed: Promise<void>;
}

/** One hand-written HTTP/1.1 request: the head as given, then `body` (which may be less than declared). */
export interface RawRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Bytes written after the head; the connection then stays open, writing nothing more. */
  readonly body?: Buffer | string;
  /** Gives up after this long without a complete answer (default 10 s). */
  readonly timeoutMs?: number;
}

/**
 * Sends a request over a plain socket and resolves with the answer as soon as its head and its
 * Content-Length bytes arrived — whether or not the server read the body. For requests a fetch client
 * cannot make: a Content-Length the body never reaches, bytes that are not UTF-8, a body that never ends.
 */
export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {}); // the server may close while we still write: that is the point
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${request.timeoutMs ?? 10_000} ms`));
    }, request.timeoutMs ?? 10_000);
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = parse(received);
      if (answer === undefined) return;
      clearTimeout(timer);
      resolve({ ...answer, ms: performance.now() - started, closed });
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (parse(received) === undefined)
        reject(new Error(`closed without an answer after ${received.length} bytes`));
    });
    const head = [
      `${request.method ?? 'POST'} ${request.path} HTTP/1.1`,
      `Host: ${url.host}`,
      ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
      '',
      '',
    ].join('\r\n');
    socket.write(head);
    if (request.body !== undefined) socket.write(request.body);
  });
}

function parse(bytes: Buffer): Omit<RawAnswer, 'ms' | 'closed'> | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = bytes.subarray(end + 4);
  if (body.length < length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: body.subarray(0, length).toString('utf8'),
  };
}
