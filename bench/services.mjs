// The services the bench's runs start or query, in plain JavaScript so that the bench and the
// reliability tests (through bench/services.d.mts) share them: a free port, waiting for a listener, a
// private PostgreSQL 15 cluster, a private Redis, and a one-off SQL statement.
// tests/reliability/helpers keeps its own PostgreSQL and Redis starters: those stop, crash, restart and
// freeze the servers mid-test, which the bench never does.
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
// pg comes from the gateway's dependencies (the bench has none of its own besides autocannon).
const pg = createRequire(join(root, 'apps/gateway/package.json'))('pg');
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** Resolves once something accepts connections on 127.0.0.1:`port` (bounded: 15 s). */
export async function waitForPort(port, what) {
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    const up = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not listen on ${port}`);
}

/** Runs one SQL statement on its own connection and returns its rows. */
export async function adminQuery(url, text, values) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Whether the server `admin` connects to has pg_stat_statements loaded (`shared_preload_libraries`); the
 * extension is created where it is missing, so its view can be read.
 */
export async function statementsLoaded(admin) {
  try {
    await adminQuery(admin, 'create extension if not exists pg_stat_statements');
    await adminQuery(admin, 'select 1 from pg_stat_statements limit 1');
    return true;
  } catch {
    return false;
  }
}

/** Starts pg_stat_statements' counts of the database `name` afresh (another database's are kept). */
export function resetStatements(admin, name) {
  return adminQuery(
    admin,
    'select pg_stat_statements_reset(0, (select oid from pg_database where datname = $1), 0)',
    [name],
  );
}

/** Every statement the database `name` ran since {@link resetStatements}: calls, milliseconds, text. */
export function statementsOf(admin, name) {
  return adminQuery(
    admin,
    `select calls, total_exec_time, regexp_replace(query, '\\s+', ' ', 'g') as query from pg_stat_statements
     where dbid = (select oid from pg_database where datname = $1) order by calls desc`,
    [name],
  );
}

// initdb refuses to run as root: as root every PostgreSQL binary runs as the postgres user.
function postgresTool(binary, args) {
  const path = join(PG_BIN, binary);
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  execFileSync(file, argv, { stdio: 'ignore', timeout: 60_000 });
}

/**
 * initdb into `dir`/pg (trust auth, no sync) and start PostgreSQL on a free port of 127.0.0.1 with its
 * socket in `dir` (which, as root, the postgres account must own), fsync off, and `settings` as extra
 * `-c` options. `stop()` is an immediate stop, safe to call twice.
 */
export async function startPostgres({ dir, settings = {} }) {
  const data = join(dir, 'pg');
  const port = await freePort();
  postgresTool('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = Object.entries({ listen_addresses: '127.0.0.1', fsync: 'off', ...settings })
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const log = join(dir, 'pg.log');
  postgresTool('pg_ctl', [
    '-D',
    data,
    '-l',
    log,
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${dir} ${options}`,
    'start',
  ]);
  let running = true;
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      if (!running) return;
      running = false;
      try {
        postgresTool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
    },
  };
}

/** `redis-server` on a free port of 127.0.0.1 without persistence, killed with this process. */
export async function startRedis() {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  process.once('exit', () => child.kill('SIGKILL'));
  await waitForPort(port, 'redis-server');
  return { port, url: `redis://127.0.0.1:${port}`, child };
}
