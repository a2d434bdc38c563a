// SIGTERM while clients send a burst over keep-alive connections (issue 31, build 3). What a client
// sees: every request it had written gets its answer — none cut off (ECONNRESET), none a 5xx; a
// connection it opens after the stop is refused (nothing was sent, so it may retry elsewhere);
// `/health/ready` answers 503 from the stop on while `/health` stays what it was; the process exits 0.
// Runs on the embedded default and on PostgreSQL (DATABASE_URL).
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../../apps/gateway/test/helpers/environment.js';
import { sleep } from './helpers/net.js';
import { kill, type Served, serve } from './helpers/serve.js';

const WORKERS = 8;

type Outcome = { readonly status: number } | { readonly code: string };

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
          response.once('end', () => resolve({ status: response.statusCode ?? 0 }));
          response.once('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? 'error' }));
        });
        call.once('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? 'error' }));
        call.end();
      });
    expect(await get('/health/ready')).toEqual({ status: 200 });

    const answers: { path: string; outcome: Outcome; afterStop: boolean }[] = [];
    let stopped = false;
    // One worker asks only for readiness, so a connection of its own is in use when the stop comes.
    const worker = async (index: number) => {
      const path = index === 0 ? '/health/ready' : index % 2 === 0 ? '/health' : '/capabilities';
      for (;;) {
        const afterStop = stopped;
        const outcome = await get(path);
        answers.push({ path, outcome, afterStop });
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
    expect(code).toBe(0);
  }, 60_000);
});
