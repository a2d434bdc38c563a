// The server lifecycle: data written before a stop is there after a start on the same DATA_DIR (or
// database), and close() lets an in-flight request finish while refusing new connections.
import { connect, createServer as createTcpServer } from 'node:net';
import type { CapabilityDomain } from '@agw/capabilities';
import { type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { gate } from './helpers/gate.js';
import { captureLog } from './helpers/log-capture.js';

let environment: TestEnvironment;

beforeAll(async () => {
  // Starts from an empty DATA_DIR: the gateway itself must create the embedded database.
  environment = await createTestEnvironment({ emptyDataDir: true });
});

afterAll(async () => {
  await environment?.cleanup();
});

function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('gateway lifecycle', () => {
  it('keeps data across a restart on the same storage', async () => {
    const config = loadConfig(environment.env);
    const first = await startGateway(config, { logger: captureLog().logger });
    const response = await fetch(`${first.url}/does-not-exist`);
    const { error } = (await response.json()) as { error: { audit_id: string } };
    await first.close();

    const second = await startGateway(config, { logger: captureLog().logger });
    try {
      const rows = await second.knex('audit_events').where({ audit_id: error.audit_id });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ http_status: 404, details: { code: 'not_found' } });
      const health = await fetch(`${second.url}/health`);
      expect(health.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('lets an in-flight request finish on close() and refuses new connections meanwhile', async () => {
    const entered = gate();
    const released = gate();
    const gateway: GatewayHandle = await startGateway(loadConfig(environment.env), {
      logger: captureLog().logger,
      extendRouter: (router) => {
        router.get('/__test/slow', async (ctx) => {
          entered.open();
          await released.opened;
          ctx.body = { finished: true };
        });
      },
    });

    const inFlight = fetch(`${gateway.url}/__test/slow`);
    await entered.opened;
    let closed = false;
    const closing = gateway.close().then(() => {
      closed = true;
    });

    expect(await refusesConnections(gateway.url)).toBe(true);
    expect(closed).toBe(false);
    released.open();

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ finished: true });
    await closing;
    expect(closed).toBe(true);
  });

  it('bounds the background work on close(): a domain whose stop never ends does not hold it', async () => {
    const log = captureLog();
    const stuck: CapabilityDomain = {
      name: 'stuck',
      handlers: [],
      migrations: [],
      start: () => ({ stop: () => new Promise<void>(() => {}) }),
    };
    const gateway = await startGateway(loadConfig(environment.env), {
      logger: log.logger,
      shutdownTimeoutMs: 200,
      domains: [stuck],
    });
    // The grace is 200 ms a step: close() returns long before a stuck step would let it.
    const closing = gateway.close().then(() => 'closed');
    const stuckFor = new Promise((resolve) => setTimeout(resolve, 3_000, 'still closing'));
    expect(await Promise.race([closing, stuckFor])).toBe('closed');
    expect(log.text()).toContain('background work did not stop in time');
    expect(log.text()).toContain('Agent Gateway stopped');
  });

  it('starts with Redis unreachable and reports it down (degraded, 503); checks SMTP by its greeting', async () => {
    const smtp = createTcpServer((socket) => socket.resume().end('220 fake.smtp.test ESMTP ready\r\n'));
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const smtpPort = (smtp.address() as { port: number }).port;
    const gateway = await startGateway(
      loadConfig({
        ...environment.env,
        REDIS_URL: 'redis://127.0.0.1:1',
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      }),
      { logger: captureLog().logger },
    );
    try {
      const response = await fetch(`${gateway.url}/health`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { status: string; checks: Record<string, unknown> };
      expect(body.status).toBe('degraded');
      expect(body.checks.redis).toEqual({ status: 'down' });
      expect(body.checks.mail).toEqual({ status: 'ok', transport: 'smtp' });
    } finally {
      await gateway.close();
      await new Promise((resolve) => smtp.close(resolve));
    }
  });
});
