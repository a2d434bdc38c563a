import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { freePort, sleep } from './net.js';

/** A private `redis-server`: its own port, no persistence, so killing it disturbs no other test. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Starts it again on the same port (waits until it answers PING, bounded: 10 s). */
  start(): Promise<void>;
  /** SIGKILL (a crash: every connection reset, every key lost) and wait for the exit. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: a hung server (connections stay open, nothing answers) and back. */
  freeze(): void;
  thaw(): void;
}

const children = new Set<ChildProcess>();
// A test process that dies mid-test takes its Redis servers with it.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** True when something on `port` answers a Redis PING. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** Starts `redis-server` on a free port of 127.0.0.1 (no RDB, no AOF). Call kill() in afterAll. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      const started = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          tmpdir(),
        ],
        { stdio: 'ignore' },
      );
      child = started;
      children.add(started);
      started.once('exit', () => children.delete(started));
      const deadline = performance.now() + 10_000;
      while (performance.now() < deadline) {
        if (started.exitCode !== null) throw new Error(`redis-server exited with ${started.exitCode}`);
        if (await answersPing(port)) return;
        await sleep(20);
      }
      started.kill('SIGKILL');
      throw new Error(`redis-server did not answer on port ${port} within 10 s`);
    },
    kill() {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) {
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
  };
  await server.start();
  return server;
}
