// SIGTERM while clients send a burst over keep-alive connections (issue 31, build 3). What a client
// sees: every request it had written gets its answer — none cut off (ECONNRESET), none a 5xx; a
// connection it opens after the stop is refused (nothing was sent, so it may retry elsewhere);
// `/health/ready` answers 503 from the stop on while `/health` stays what it was; the answers that end
// a connection say `Connection: close`; the process exits 0. A second SIGTERM while a request still
// holds the drain ends the process at once, exit 1. Runs on the embedded default and on PostgreSQL
// (DATABASE_URL).
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../../apps/gateway/test/helpers/environment.js';
import { sleep } from './helpers/net.js';
import { kill, type Served, serve } from './helpers/serve.js';

const WORKERS = 8;

type Outcome = { readonly status: number; readonly connection: string } | { readonly code: string };

describe('agw serve drains on SIGTERM', () => {
  let environment: TestEnvironment;
  let served: Served | undefined;

  beforeAll(async () => {
    environment = await createTestEnvironment();
  }, 60_000);
  afterAll(async () => {
    await kill(served);
    await environment?.cleanup();
  });

  it('a keep-alive burst: no request cut off, no 5xx, readiness 503 while draining, exit 0', async () => {
    served = await serve({ ...environment.env, SHUTDOWN_GRACE_MS: '10000' });
    const child = served.child;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
    const get = (path: string) =>
      new Promise<Outcome>((resolve) => {
        const call = request(`${served?.url}${path}`, { agent }, (response) => {
          response.resume();
          response.once('end', () =>
            resolve({ status: response.statusCode ?? 0, connection: response.headers.connection ?? '' }),
          );
          response.once('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? 'error' }));
        });
        call.once('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? 'error' }));
        call.end();
      });
    expect(await get('/health/ready')).toEqual({ status: 200, connection: 'keep-alive' });

    const answers: { path: string; outcome: Outcome; afterStop: boolean; afterDrain: boolean }[] = [];
    let stopped = false;
    // Set once a 503 from readiness arrived: the gateway was draining before any request sent after it.
    let drainSeen = false;
    // One worker asks only for readiness, so a connection of its own is in use when the stop comes.
    const worker = async (index: number) => {
      const path = index === 0 ? '/health/ready' : index % 2 === 0 ? '/health' : '/capabilities';
      for (;;) {
        const [afterStop, afterDrain] = [stopped, drainSeen];
        const outcome = await get(path);
        if ('status' in outcome && outcome.status === 503) drainSeen = true;
        answers.push({ path, outcome, afterStop, afterDrain });
        if ('code' in outcome) return;
      }
    };
    const burst = Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)));
    await sleep(300);
    stopped = true;
    child.kill('SIGTERM');
    await burst;
    agent.destroy();
    const code = await exited;

    const failures = answers.filter(
      ({ outcome }) =>
        ('code' in outcome && outcome.code !== 'ECONNREFUSED') ||
        ('status' in outcome && outcome.status >= 500 && outcome.status !== 503),
    );
    const figures = {
      answers: answers.length,
      after_stop: answers.filter((answer) => answer.afterStop && 'status' in answer.outcome).length,
      refused: answers.filter(({ outcome }) => 'code' in outcome).length,
    };
    console.info('drain figures', JSON.stringify(figures));
    expect(failures).toEqual([]);
    // 503 only from readiness, and only once the stop was sent.
    const unavailable = answers.filter(({ outcome }) => 'status' in outcome && outcome.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const answer of unavailable) {
      expect(answer.path).toBe('/health/ready');
      expect(answer.afterStop).toBe(true);
    }
    // Every worker ended on a refused connection: the listener closed, nothing was cut mid-request.
    expect(figures.refused).toBe(WORKERS);
    // Its client is told not to reuse the connection: every answer of the drain (the 503s, and all
    // answers to requests sent once a 503 had arrived) says `Connection: close`.
    const drained = answers.filter(
      ({ outcome, afterDrain }) => 'status' in outcome && (afterDrain || outcome.status === 503),
    );
    for (const answer of drained)
      expect(answer, answer.path).toMatchObject({ outcome: { connection: 'close' } });
    expect(code).toBe(0);
  }, 60_000);

  it('a second SIGTERM while a request holds the drain exits at once with 1, cutting it', async () => {
    // A grace far beyond the test: only the second signal can end the process within it.
    served = await serve({
      ...environment.env,
      SHUTDOWN_GRACE_MS: '600000',
      HTTP_REQUEST_TIMEOUT_MS: '600000',
    });
    const current = served;
    const closed = new Promise<number | null>((resolve) =>
      current.child.once('close', (code) => resolve(code)),
    );
    // A request whose body never finishes (a public route reads it before anything else): in flight for
    // as long as the drain lets it be.
    const { hostname, port } = new URL(current.url);
    const slow = connect(Number(port), hostname);
    await new Promise<void>((resolve) => slow.once('connect', resolve));
    const cut = new Promise<string>((resolve) => {
      slow.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      slow.once('close', () => resolve('closed'));
    });
    let answered = '';
    slow.on('data', (chunk) => {
      answered += chunk.toString();
    });
    slow.write(
      'POST /a/events HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    current.child.kill('SIGTERM');
    // The drain has begun once the listener refuses a new connection.
    for (;;) {
      const refused = await new Promise<boolean>((resolve) => {
        const probe = connect(Number(port), hostname);
        probe.once('connect', () => {
          probe.destroy();
          resolve(false);
        });
        probe.once('error', () => resolve(true));
      });
      if (refused) break;
      await sleep(50);
    }
    expect(current.child.exitCode).toBeNull();
    current.child.kill('SIGTERM');
    expect(await closed).toBe(1);
    expect(current.log.join('\n')).toContain('second stop signal');
    // The slow request got no answer: its connection ended with the process.
    await cut;
    expect(answered).toBe('');
  }, 60_000);
});
