// Issue 12, finding 5: a slow client cannot hold a connection. With short configured limits, incomplete
// headers are closed after HTTP_HEADERS_TIMEOUT_MS, a chunked body that never ends after
// HTTP_REQUEST_TIMEOUT_MS (408, then the connection closes), an idle keep-alive connection after
// HTTP_KEEP_ALIVE_TIMEOUT_MS; each timed-out request is a warn line without header or body bytes.
// (Before: Node's defaults held the body 318 s and the headers 78 s, unlogged.)

import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useGateway } from './helpers/gateway.js';
import { captureLog } from './helpers/log-capture.js';

const log = captureLog();
const gateway = useGateway({
  logger: log.logger,
  env: {
    HTTP_HEADERS_TIMEOUT_MS: '400',
    HTTP_REQUEST_TIMEOUT_MS: '800',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
  },
});
const SECRET = 'agw_ak_AAAAAAAAAAAA.never-logged-secret';

/** Opens a connection, writes `text`, and resolves when the server closes it: what it answered, when. */
function holdOpen(text: string): Promise<{ answer: string; ms: number }> {
  const url = new URL(gateway.url);
  const socket: Socket = connect(Number(url.port), url.hostname);
  const started = performance.now();
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    answer += chunk;
  });
  socket.on('error', () => {});
  socket.write(text);
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error('the server kept the connection open for 10 s'));
    }, 10_000);
    socket.once('close', () => {
      clearTimeout(guard);
      resolve({ answer, ms: performance.now() - started });
    });
  });
}

const timeoutLines = () =>
  log.entries().filter((entry) => entry.code === 'ERR_HTTP_REQUEST_TIMEOUT' && entry.level === 40);

describe('HTTP server timeouts', () => {
  it('incomplete headers are closed after the headers timeout, with 408 and a warn line', async () => {
    const { answer, ms } = await holdOpen(
      `GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${SECRET}\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeGreaterThanOrEqual(350);
    expect(ms).toBeLessThan(3000);
    await expect.poll(() => timeoutLines().some((entry) => entry.phase === 'headers')).toBe(true);
  });

  it('a chunked body that never ends is closed after the request timeout, with 408 and a warn line', async () => {
    const head = [
      'POST /mcp/search_capabilities HTTP/1.1',
      'Host: x',
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
      '',
      '',
    ].join('\r\n');
    const { answer, ms } = await holdOpen(`${head}5\r\n{"que\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeGreaterThanOrEqual(750);
    expect(ms).toBeLessThan(4000);
    await expect.poll(() => timeoutLines().some((entry) => entry.phase === 'body')).toBe(true);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const { answer, ms } = await holdOpen('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(3000);
  });

  it('the warn lines hold no header or body bytes', () => {
    expect(timeoutLines().length).toBeGreaterThanOrEqual(2);
    const text = timeoutLines()
      .map((entry) => JSON.stringify(entry))
      .join('\n');
    expect(text).not.toContain('never-logged-secret');
    expect(text).not.toContain('{"que');
  });
});
