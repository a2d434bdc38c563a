// The fleet as it runs (issue 31, build 2): a private PostgreSQL 15, pgbouncer 1.18 in transaction
// pooling mode in front of it, a Redis, three `agw serve` processes and nginx as the load balancer, all
// on loopback with the configs shipped under deploy/. Three gateways start at once on the empty
// database: the migrations run once, all three serve. Then a bounded load through nginx (uploads with
// idempotency keys retried as the SDK retries them, reads) while each gateway in turn gets SIGTERM and
// is started again, and one is SIGKILLed mid-burst: every key ends with one document and one charge,
// no request fails but for documented retryable answers the client retried, the audit chain verifies.
// Runs in the PostgreSQL pass only (DATABASE_URL set: the CI's services are up, and so this file's
// own cluster may be started); needs nginx and pgbouncer (scripts/ensure-test-tools.mjs).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allMigrations, hashIdempotencyKey, rollUpCharges, SecretBox, verifyAuditChain } from '@agw/gateway';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, onboard } from '../../apps/gateway/test/helpers/access-client.js';
import { requireTool } from '../helpers/require-tool.js';
import { freePort, sleep } from './helpers/net.js';
import {
  type PostgresCluster,
  postgresBinariesMissing,
  startPostgresCluster,
} from './helpers/postgres-cluster.js';
import { type RedisServer, startRedisServer } from './helpers/redis-server.js';
import { kill, type Served, serve, stop } from './helpers/serve.js';
import { type TimedAnswer, timedCall } from './helpers/timed-call.js';

const onPostgres = Boolean(process.env.DATABASE_URL);
const GATEWAYS = 3;
const UPLOADS_PER_PHASE = 30;
const CONCURRENCY = 6;
const BOUND_MS = 10_000;
/** Every key has its final answer within this (a SIGKILLed claim blocks retries for its 15 s lease). */
const SETTLE_MS = 40_000;
const asRoot = process.getuid?.() === 0;
const DEPLOY = new URL('../../deploy/', import.meta.url);

/** Answers the SDK retries with the same key: no answer, a gateway's or nginx's 502/503/504, the twin running. */
function retryable(answer: TimedAnswer): boolean {
  return (
    answer.status === 0 ||
    answer.status === 502 ||
    answer.status === 503 ||
    answer.status === 504 ||
    (answer.status === 409 && answer.json?.error?.code === 'idempotency_request_in_progress')
  );
}

async function template(name: string, values: Record<string, string>): Promise<string> {
  const text = await readFile(new URL(name, DEPLOY), 'utf8');
  return text.replace(/\$\{([A-Z_]+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`${name}: no value for \${${key}}`);
    return value;
  });
}

/** A foreground process of the fleet (nginx, pgbouncer); as root, pgbouncer runs as postgres. */
function daemon(command: string, args: string[], user?: string): ChildProcess {
  const [file, argv] = user && asRoot ? ['runuser', ['-u', user, '--', command, ...args]] : [command, args];
  const child = spawn(file, argv, { stdio: 'ignore' });
  process.once('exit', () => child.kill('SIGKILL'));
  return child;
}

async function waitForPort(port: number, what: string): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await sleep(50);
  }
  throw new Error(`${what} did not listen on ${port}`);
}

const missing = onPostgres ? (postgresBinariesMissing() ?? requireTool('nginx', 'pgbouncer')) : undefined;

describe.skipIf(!onPostgres || missing !== undefined)(
  'a fleet: nginx, three gateways, pgbouncer, PostgreSQL',
  () => {
    let cluster: PostgresCluster;
    let redis: RedisServer;
    let runDir: string;
    let pgbouncer: ChildProcess;
    let nginx: ChildProcess;
    let knex: Knex;
    let entry: string;
    const ports: number[] = [];
    const gateways: (Served | undefined)[] = [];
    let env: Record<string, string>;

    beforeAll(async () => {
      cluster = await startPostgresCluster();
      redis = await startRedisServer();
      runDir = await mkdtemp(join(tmpdir(), 'agw-fleet-'));
      // pgbouncer (as postgres) and nginx's workers (as nobody) pass through it to their own folders.
      await chmod(runDir, 0o711);
      if (asRoot) {
        const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
        const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
        await mkdir(join(runDir, 'pgbouncer'));
        await chown(join(runDir, 'pgbouncer'), uid, gid);
      } else {
        await mkdir(join(runDir, 'pgbouncer'));
      }
      const bouncerDir = join(runDir, 'pgbouncer');
      const bouncerPort = await freePort();
      await writeFile(join(bouncerDir, 'userlist.txt'), '"postgres" ""\n');
      await writeFile(
        join(bouncerDir, 'pgbouncer.ini'),
        await template('pgbouncer.ini.template', {
          RUN_DIR: bouncerDir,
          PG_HOST: '127.0.0.1',
          PG_PORT: String(cluster.port),
          LISTEN_PORT: String(bouncerPort),
          POOL_SIZE: '20',
        }),
      );
      pgbouncer = daemon('pgbouncer', [join(bouncerDir, 'pgbouncer.ini')], 'postgres');
      await waitForPort(bouncerPort, 'pgbouncer');

      for (let index = 0; index < GATEWAYS; index += 1) ports.push(await freePort());
      const nginxPort = await freePort();
      await writeFile(
        join(runDir, 'nginx.conf'),
        await template('nginx.conf.template', {
          RUN_DIR: runDir,
          LISTEN: `127.0.0.1:${nginxPort}`,
          UPSTREAMS: ports
            .map((port) => `server 127.0.0.1:${port} max_fails=1 fail_timeout=2s;`)
            .join('\n    '),
          BODY_LIMIT: '12m',
        }),
      );
      nginx = daemon('nginx', ['-c', join(runDir, 'nginx.conf'), '-p', runDir]);
      await waitForPort(nginxPort, 'nginx');
      entry = `http://127.0.0.1:${nginxPort}`;

      env = {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${bouncerPort}/postgres`,
        DATABASE_PREPARED_STATEMENTS: 'false',
        // pgbouncer refuses statement_timeout as a startup parameter (deploy/pgbouncer.ini.template).
        DATABASE_STATEMENT_TIMEOUT_MS: '0',
        REDIS_URL: redis.url,
        DATA_DIR: join(runDir, 'data'),
        SECRET_KEY: randomBytes(32).toString('hex'),
        SHUTDOWN_GRACE_MS: '5000',
        RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '999999',
        RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '999999',
        HOST: '127.0.0.1',
      };
      knex = knexFactory({ client: 'pg', connection: cluster.url, pool: { min: 0, max: 2 } });
    }, 90_000);

    afterAll(async () => {
      await Promise.all(gateways.map((gateway) => kill(gateway)));
      nginx?.kill('SIGTERM');
      pgbouncer?.kill('SIGTERM');
      await knex?.destroy();
      await redis?.kill();
      await cluster?.destroy();
      if (runDir) await rm(runDir, { recursive: true, force: true });
    });

    const start = (index: number) =>
      serve({ ...env, PORT: String(ports[index]) }).then((served) => {
        gateways[index] = served;
        return served;
      });

    it('three gateways started at once on an empty database: migrations run once, all three serve', async () => {
      await Promise.all(ports.map((_, index) => start(index)));
      const applied = gateways.filter((gateway) =>
        gateway?.log.some((line) => /applied \d+ migration/.test(line)),
      );
      expect(applied).toHaveLength(1);
      const names = await knex('agw_migrations').pluck('name');
      expect(names).toHaveLength(allMigrations().length);
      for (const gateway of gateways) {
        expect((await timedCall(`${gateway?.url}/health/ready`, { boundMs: BOUND_MS })).status).toBe(200);
      }
    }, 90_000);

    it('rolling restart and a SIGKILL under load: every key one document, one charge; the chain verifies', async () => {
      const flow = await onboard(new AccessClient(entry));
      const { installationKey: key, installationId } = flow;
      await knex('installations')
        .where({ id: installationId })
        .update({ owner_verified_at: knex.fn.now(), operator_approval_status: 'approved' });
      const organizationId = (await knex('installations').where({ id: installationId }).first())
        .organization_id;
      await knex('wallets').insert({ organization_id: organizationId, balance: '1000' });

      const keys: string[] = [];
      let retried = 0;
      const failed: TimedAnswer[] = [];
      const upload = async (idempotencyKey: string) => {
        const body = {
          id: 'documents.document.upload',
          params: {
            file_name: `${idempotencyKey}.txt`,
            mime_type: 'text/plain',
            content_base64: Buffer.from(`fleet ${idempotencyKey}`).toString('base64'),
          },
          idempotency_key: idempotencyKey,
        };
        const deadline = performance.now() + SETTLE_MS;
        for (;;) {
          const answer = await timedCall(`${entry}/mcp/invoke`, { key, body, boundMs: BOUND_MS });
          if (!retryable(answer) || performance.now() > deadline) return answer;
          retried += 1;
          await sleep(250);
        }
      };
      const read = async () => {
        const body = { id: 'core.org.current.get', params: {} };
        const answer = await timedCall(`${entry}/mcp/invoke`, { key, body, boundMs: BOUND_MS });
        if (answer.status !== 200) failed.push(answer);
      };
      /** A phase: `UPLOADS_PER_PHASE` uploads and as many reads, `CONCURRENCY` at a time, while `disturb` runs. */
      const phase = async (name: string, disturb: () => Promise<void>) => {
        const queue = Array.from(
          { length: UPLOADS_PER_PHASE },
          (_, index) => `${name}-${index}-${randomBytes(4).toString('hex')}`,
        );
        keys.push(...queue);
        const work = async () => {
          for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
            const answer = await upload(next);
            if (answer.status !== 200) failed.push(answer);
            await read();
          }
        };
        await Promise.all([...Array.from({ length: CONCURRENCY }, work), disturb()]);
      };

      for (let index = 0; index < GATEWAYS; index += 1) {
        await phase(`rolling-${index}`, async () => {
          await sleep(200);
          await stop(gateways[index]);
          await start(index);
        });
      }
      await phase('sigkill', async () => {
        await sleep(200);
        await kill(gateways[0]);
        await start(0);
      });
      console.info('fleet figures', JSON.stringify({ uploads: keys.length, retried, failed: failed.length }));
      expect(failed.map((answer) => `${answer.status} ${answer.text.slice(0, 200)}`)).toEqual([]);

      const box = new SecretBox(Buffer.from(env.SECRET_KEY as string, 'hex'));
      expect(await knex('documents').where({ organization_id: organizationId })).toHaveLength(keys.length);
      for (const idempotencyKey of keys) {
        const charges = await knex('wallet_ledger').where({
          idempotency_scope: `idempotency:${installationId}:${hashIdempotencyKey(box, idempotencyKey)}`,
          kind: 'charge',
        });
        expect(charges).toHaveLength(1);
      }
      await rollUpCharges(knex);
      const wallet = await knex('wallets').where({ organization_id: organizationId }).first();
      expect(wallet.balance).toBe((1000 - keys.length * 0.02).toFixed(6));
      // Every gateway stopped cleanly seals what it wrote; the last rows are sealed by the running ones.
      await Promise.all(gateways.map((gateway) => stop(gateway)));
      const chain = await verifyAuditChain(knex);
      expect(chain.ok).toBe(true);
    }, 180_000);
  },
);
