import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { requireTool } from '../../../tests/helpers/require-tool.js';
import { AccessClient } from './helpers/access-client.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import type { GatewayFixture } from './helpers/gateway.js';
import { approvedInstallation } from './helpers/gateway.js';

// Documented behaviour (README "Rate limits"): with Redis unreachable, invokes never wait on it —
// rate limits fall back to in-process buckets (still enforced), the cache reads PostgreSQL — and
// when Redis returns, the shared buckets are used again without a restart.
const read = { id: 'core.org.current.get', params: {} };
const BOUND_MS = 1000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

const noRedisServer = requireTool('redis-server');

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', ''], {
    stdio: 'ignore',
  });
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = createServer().listen(port, '127.0.0.1');
      socket.once('listening', () => socket.close(() => resolve(false)));
      socket.once('error', () => resolve(true));
    });
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('redis-server did not start');
}

let environment: TestEnvironment | undefined;
let gateway: GatewayHandle | undefined;
let redis: ChildProcess | undefined;

async function start(redisPort: number) {
  environment = await createTestEnvironment();
  gateway = await startGateway(
    loadConfig({
      ...environment.env,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '5',
    }),
  );
  const client = new AccessClient(gateway.url);
  const { key } = await approvedInstallation({ client, knex: gateway.knex } as GatewayFixture);
  /** One invoke: its status, remaining count and how long it took. */
  return async () => {
    const started = performance.now();
    const answer = await client.post('/mcp/invoke', read, { key, idem: null });
    const remaining = /;r=(\d+);/.exec(answer.headers.get('ratelimit') ?? '')?.[1];
    return { status: answer.status, remaining: Number(remaining), ms: performance.now() - started };
  };
}

afterEach(async () => {
  await gateway?.close();
  await environment?.cleanup();
  redis?.kill('SIGKILL');
  gateway = undefined;
  environment = undefined;
  redis = undefined;
});
afterAll(() => redis?.kill('SIGKILL'));

describe('Redis unreachable', () => {
  it('invokes answer within the bound and are still limited in process', async () => {
    const invoke = await start(await freePort());
    const answers = [];
    for (let call = 0; call < 6; call += 1) answers.push(await invoke());
    for (const answer of answers) expect(answer.ms).toBeLessThan(BOUND_MS);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.map((answer) => answer.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
  });

  it.skipIf(noRedisServer)(
    `Redis stopped mid-run: no hang, in-process limits; back: shared buckets again without restart ${noRedisServer ?? ''}`,
    async () => {
      const port = await freePort();
      redis = await startRedis(port);
      const invoke = await start(port);
      expect((await invoke()).remaining).toBe(4);
      expect((await invoke()).remaining).toBe(3);

      redis.kill('SIGKILL');
      redis = undefined;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const during = [await invoke(), await invoke(), await invoke()];
      for (const answer of during) {
        expect(answer.status).toBe(200);
        expect(answer.ms).toBeLessThan(BOUND_MS);
      }
      // The insurance buckets start empty in this process and are never copied back.
      expect(during.map((answer) => answer.remaining)).toEqual([4, 3, 2]);

      redis = await startRedis(port);
      const health = new AccessClient(gateway?.url ?? '');
      for (let attempt = 0; attempt < 100; attempt += 1) {
        if ((await health.get('/health')).json?.checks?.redis?.status === 'ok') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // A fresh Redis (no persistence) holds a fresh bucket: counted there, not in process.
      expect((await invoke()).remaining).toBe(4);
    },
    20_000,
  );
});
