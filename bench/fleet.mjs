// The fleet's plumbing, shared by the fleet test (tests/reliability/fleet.test.ts) and the bench's fleet
// scenario (bench/fleet-bench.mjs): pgbouncer in transaction mode and nginx in front of N gateways,
// started in the foreground on loopback from the configs shipped under deploy/, and the environment a
// gateway behind that pgbouncer (1.18, Debian's) needs. Plain JavaScript so that both can import it.
import { execFileSync, spawn } from 'node:child_process';
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, waitForPort } from './services.mjs';

export { freePort } from './services.mjs';

const DEPLOY = new URL('../deploy/', import.meta.url);
const asRoot = process.getuid?.() === 0;

/** `deploy/<name>` with each `${NAME}` replaced; a placeholder without a value is an error. */
async function fillTemplate(name, values) {
  const text = await readFile(new URL(name, DEPLOY), 'utf8');
  return text.replace(/\$\{([A-Z_]+)\}/g, (_, key) => {
    if (values[key] === undefined) throw new Error(`${name}: no value for \${${key}}`);
    return values[key];
  });
}

/** A foreground daemon, killed with this process; as root, run as `user` when given. */
function daemon(command, args, user) {
  const [file, argv] = user && asRoot ? ['runuser', ['-u', user, '--', command, ...args]] : [command, args];
  const child = spawn(file, argv, { stdio: 'ignore' });
  process.once('exit', () => child.kill('SIGKILL'));
  return child;
}

/**
 * The folder the fleet's daemons write in: passable by nginx's workers (nobody), with a `pgbouncer`
 * folder owned by postgres when we are root (pgbouncer runs as postgres then).
 */
export async function prepareRunDir(runDir) {
  await chmod(runDir, 0o711);
  await mkdir(join(runDir, 'pgbouncer'), { recursive: true });
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    await chown(join(runDir, 'pgbouncer'), uid, gid);
  }
}

/** pgbouncer (deploy/pgbouncer.ini.template) in front of the PostgreSQL on 127.0.0.1:`pgPort`. */
export async function startPgbouncer({ runDir, pgPort, poolSize = 20 }) {
  const dir = join(runDir, 'pgbouncer');
  const port = await freePort();
  await writeFile(join(dir, 'userlist.txt'), '"postgres" ""\n');
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    await fillTemplate('pgbouncer.ini.template', {
      RUN_DIR: dir,
      PG_HOST: '127.0.0.1',
      PG_PORT: String(pgPort),
      LISTEN_PORT: String(port),
      POOL_SIZE: String(poolSize),
    }),
  );
  const child = daemon('pgbouncer', [join(dir, 'pgbouncer.ini')], 'postgres');
  await waitForPort(port, 'pgbouncer');
  return { port, child };
}

/** nginx (deploy/nginx.conf.template) on a free port, in front of the gateways on `upstreamPorts`. */
export async function startNginx({ runDir, upstreamPorts }) {
  const port = await freePort();
  await writeFile(
    join(runDir, 'nginx.conf'),
    await fillTemplate('nginx.conf.template', {
      RUN_DIR: runDir,
      LISTEN: `127.0.0.1:${port}`,
      UPSTREAMS: upstreamPorts
        .map((upstream) => `server 127.0.0.1:${upstream} max_fails=1 fail_timeout=2s;`)
        .join('\n    '),
      BODY_LIMIT: '12m',
    }),
  );
  const child = daemon('nginx', ['-c', join(runDir, 'nginx.conf'), '-p', runDir]);
  await waitForPort(port, 'nginx');
  return { url: `http://127.0.0.1:${port}`, child };
}

/** What a gateway behind that pgbouncer needs (docs/deploy.md), beside its own PORT, DATA_DIR and keys. */
export function behindPgbouncer(bouncerPort, database = 'postgres') {
  return {
    DATABASE_URL: `postgres://postgres@127.0.0.1:${bouncerPort}/${database}`,
    // pgbouncer 1.18 does not keep named prepared statements across transactions.
    DATABASE_PREPARED_STATEMENTS: 'false',
    // pgbouncer refuses statement_timeout as a startup parameter (deploy/pgbouncer.ini.template).
    DATABASE_STATEMENT_TIMEOUT_MS: '0',
  };
}
