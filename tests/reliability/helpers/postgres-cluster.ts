import { execFile, execFileSync } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { need, requireTool } from '../../helpers/require-tool.js';
import { freePort } from './net.js';

const run = promisify(execFile);
const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;

/**
 * Undefined when initdb and pg_ctl of PostgreSQL 15 are installed (and, as root, a postgres account to
 * run them as), else why not; in CI that reason is thrown (tests/helpers/require-tool.ts).
 */
export function postgresBinariesMissing(): string | undefined {
  const tools = requireTool(join(BIN, 'initdb'), join(BIN, 'pg_ctl'));
  if (tools !== undefined || !asRoot) return tools;
  let account = true;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    account = false;
  }
  return need('the postgres account', account, 'install PostgreSQL 15 (scripts/ensure-test-tools.mjs)');
}

/** A private PostgreSQL cluster: its own data dir and port, so stopping it disturbs no other test. */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly port: number;
  /** Starts the server again (waits until it accepts connections, bounded: 30 s). */
  start(): Promise<void>;
  /** Stops the server; `immediate` is a crash (no checkpoint, clients cut off). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops the server if it runs and deletes the data dir; safe to call twice. */
  destroy(): Promise<void>;
}

// initdb refuses to run as root: as root every PostgreSQL binary runs as the postgres user.
function pg(binary: string, args: string[]) {
  const path = join(BIN, binary);
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  return run(command, argv, { timeout: 60_000 });
}

const alive = new Set<string>();
// A test process that dies mid-test still stops its clusters (a sync exit hook; rm is left to the OS tmp).
process.once('exit', () => {
  for (const dir of alive) {
    try {
      const path = join(BIN, 'pg_ctl');
      const args = ['-D', join(dir, 'data'), '-m', 'immediate', 'stop'];
      if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', path, ...args], { stdio: 'ignore' });
      else execFileSync(path, args, { stdio: 'ignore' });
    } catch {
      // already stopped
    }
  }
});

/**
 * initdb into a fresh temp dir (trust auth on loopback, fsync off, no sync at init) and start the
 * server on a free port on 127.0.0.1 with its socket in the same dir. Call destroy() in afterAll.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-reliability-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    await chown(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  let running = false;
  const cluster: PostgresCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      // fsync=off is safe here: an immediate stop kills PostgreSQL, not the OS, so written WAL survives.
      // synchronous_commit must stay on: with it off, an immediate stop loses commits already answered.
      await pg('pg_ctl', [
        '-D',
        data,
        '-l',
        join(dir, 'server.log'),
        '-w',
        '-t',
        '30',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`,
        'start',
      ]);
      running = true;
      alive.add(dir);
    },
    async stop(mode = 'fast') {
      if (!running) return;
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
      running = false;
      alive.delete(dir);
    },
    async destroy() {
      await cluster.stop('immediate').catch(() => {});
      alive.delete(dir);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    await cluster.start();
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
