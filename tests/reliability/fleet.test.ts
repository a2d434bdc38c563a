// The fleet as it runs (issue 31, build 2): a private PostgreSQL 15, pgbouncer 1.18 in transaction
// pooling mode in front of it, a Redis, three `agw serve` processes and nginx as the load balancer, all
// on loopback with the configs shipped under deploy/. Three gateways start at once on the empty
// database: the migrations run once, all three serve. Then a bounded load through nginx (uploads with
// idempotency keys and reads, each retried as the SDK retries a lost or 502/503/504 answer, and public
// bookings of a calendar link the agent created, two visitors per slot) while each gateway in turn gets
// SIGTERM and is started again, and one is SIGKILLed mid-burst: every key ends with one document and
// one charge, every slot with exactly one booking and no visitor told 201 without it, no request fails
// but for documented retryable answers the client retried, the audit chain verifies. The start-up of
// pgbouncer and nginx is bench/fleet.mjs, shared with the bench's fleet scenario.
// Runs in the PostgreSQL pass only (DATABASE_URL set: the CI's services are up, and so this file's
// own cluster may be started); needs nginx and pgbouncer (scripts/ensure-test-tools.mjs).
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashIdempotencyKey, rollUpCharges, SecretBox, verifyAuditChain } from '@agw/gateway';
import knexFactory, { type Knex } from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, onboard } from '../../apps/gateway/test/helpers/access-client.js';
import { adminFetch, readOperatorKeyFile } from '../../apps/gateway/test/helpers/admin-fixtures.js';
import { behindPgbouncer, freePort, prepareRunDir, startNginx, startPgbouncer } from '../../bench/fleet.mjs';
import { requireTool } from '../helpers/require-tool.js';
import { sleep } from './helpers/net.js';
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
/** Slots booked per phase, each by two visitors at once. */
const SLOTS_PER_PHASE = 10;
const CONCURRENCY = 6;
const BOUND_MS = 10_000;
/** Every key has its final answer within this (a SIGKILLed claim blocks retries for its 15 s lease). */
const SETTLE_MS = 40_000;
/**
 * Three gateways starting at once on 2 shared cores: each loads the bundle (~2 s of CPU) and two wait
 * for the third's migrations, so the last listens after 20-30 s here; 30 s (serve's default) flaked.
 */
const CONCURRENT_START_MS = 60_000;

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
      await prepareRunDir(runDir);
      const bouncer = await startPgbouncer({ runDir, pgPort: cluster.port, poolSize: 20 });
      pgbouncer = bouncer.child;
      for (let index = 0; index < GATEWAYS; index += 1) ports.push(await freePort());
      const balancer = await startNginx({ runDir, upstreamPorts: ports });
      nginx = balancer.child;
      entry = balancer.url;

      env = {
        ...behindPgbouncer(bouncer.port),
        REDIS_URL: redis.url,
        DATA_DIR: join(runDir, 'data'),
        SECRET_KEY: randomBytes(32).toString('hex'),
        SHUTDOWN_GRACE_MS: '5000',
        RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '999999',
        RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '999999',
        // Every visitor comes through nginx from 127.0.0.1: the per-address limits would refuse them.
        CALENDAR_READS_PER_MINUTE: '100000',
        CALENDAR_BOOKINGS_PER_MINUTE: '100000',
        CALENDAR_LINK_BOOKINGS_PER_HOUR: '100000',
        CALENDAR_ORG_BOOKINGS_PER_HOUR: '100000',
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

    /** Every gateway started, with its log; on a failed test their logs and exits are printed. */
    const started: { index: number; served: Served }[] = [];
    const start = (index: number, timeoutMs?: number) =>
      serve({ ...env, PORT: String(ports[index]) }, timeoutMs).then((served) => {
        gateways[index] = served;
        started.push({ index, served });
        return served;
      });

    afterEach((context) => {
      if (context.task.result?.state !== 'fail') return;
      for (const { index, served } of started) {
        const { exitCode, signalCode } = served.child;
        console.error(
          `gateway ${index} (${served.url}) exit ${exitCode ?? signalCode ?? 'none'}:\n${served.log.join('\n')}`,
        );
      }
    });

    it('three gateways started at once on an empty database: migrations run once, all three serve', async () => {
      // Each refusal to start says why (its last log lines); none may fail.
      const starts = await Promise.allSettled(ports.map((_, index) => start(index, CONCURRENT_START_MS)));
      expect(
        starts.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : [])),
      ).toEqual([]);
      // One gateway applied every migration, once; the other two found the schema up to date.
      const appliedBy = gateways.flatMap((gateway) =>
        (gateway?.log ?? [])
          .filter((line) => /applied \d+ migration/.test(line))
          .map((line) => JSON.parse(line).applied as string[]),
      );
      expect(appliedBy).toHaveLength(1);
      const names = await knex('agw_migrations').orderBy('id').pluck('name');
      expect(names).toEqual(appliedBy[0]);
      const upToDate = gateways.filter((gateway) =>
        gateway?.log.some((line) => line.includes('database schema up to date')),
      );
      expect(upToDate).toHaveLength(GATEWAYS - 1);
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

      let retried = 0;
      /** `timedCall`, repeated every 250 ms on a retryable answer as the SDK does, until SETTLE_MS. */
      const callRetrying = async (url: string, options: Parameters<typeof timedCall>[1]) => {
        const deadline = performance.now() + SETTLE_MS;
        for (;;) {
          const answer = await timedCall(url, options);
          if (!retryable(answer) || performance.now() > deadline) return answer;
          retried += 1;
          await sleep(250);
        }
      };
      const failed: TimedAnswer[] = [];

      // The agent's booking link (medium risk: approved by the operator through nginx too).
      const operatorKey = await readOperatorKeyFile(env.DATA_DIR as string);
      const invokeApproved = async (id: string, params: Record<string, unknown>) => {
        const call = (extra: Record<string, unknown>) =>
          timedCall(`${entry}/mcp/invoke`, {
            key,
            body: { id, params, idempotency_key: randomUUID(), ...extra },
            boundMs: BOUND_MS,
          });
        let answer = await call({});
        const approval = answer.json?.approval;
        if (answer.json?.status === 'pending_approval') {
          await adminFetch(`${entry}/admin/approvals/${approval.approval_id}/approve`, operatorKey, {
            body: {},
          });
          answer = await call({ approval_token: approval.approval_token });
        }
        if (answer.status !== 200) throw new Error(`${id}: ${answer.status} ${answer.text}`);
        return answer.json.result;
      };
      const calendarId = (
        await invokeApproved('calendar.calendar.manage', {
          operation: 'create',
          name: 'Fleet',
          timezone: 'UTC',
        })
      ).calendar.id;
      await invokeApproved('calendar.availability.manage', {
        operation: 'replace',
        calendar_id: calendarId,
        rules: [0, 1, 2, 3, 4, 5, 6].map((day) => ({
          day_of_week: day,
          start_time: '00:00',
          end_time: '23:30',
        })),
      });
      const link = await invokeApproved('calendar.booking_link.manage', {
        operation: 'create',
        calendar_id: calendarId,
        title: 'Fleet',
        access_mode: 'public',
        one_time_use: false,
        min_notice_minutes: 0,
      });
      const slotsAnswer = await timedCall(`${entry}${link.url_path}/slots`, { boundMs: BOUND_MS });
      const freeSlots: string[] = slotsAnswer.json.slots.map((slot: { start: string }) => slot.start);
      expect(freeSlots.length).toBeGreaterThanOrEqual((GATEWAYS + 1) * SLOTS_PER_PHASE);
      const booked: { start: string; email: string; status: number; code?: string }[] = [];
      /** A visitor books `start`, retrying a lost or 502/503/504 answer as a browser's user would. */
      const book = async (start: string, email: string) => {
        const body = { start, name: email, email };
        const answer = await callRetrying(`${entry}${link.url_path}/bookings`, { body, boundMs: BOUND_MS });
        booked.push({ start, email, status: answer.status, code: answer.json?.error?.code });
        if (answer.status !== 201 && !(answer.status === 409 && answer.json?.error?.code === 'slot_taken')) {
          failed.push(answer);
        }
      };

      const keys: string[] = [];
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
        return callRetrying(`${entry}/mcp/invoke`, { key, body, boundMs: BOUND_MS });
      };
      /** A read, retried on a lost or 502/503/504 answer as the SDK retries every call (src/retry.ts). */
      const read = async () => {
        const body = { id: 'core.org.current.get', params: {} };
        const answer = await callRetrying(`${entry}/mcp/invoke`, { key, body, boundMs: BOUND_MS });
        if (answer.status !== 200) failed.push(answer);
      };
      /** A phase: `UPLOADS_PER_PHASE` uploads and as many reads, `CONCURRENCY` at a time, while `disturb` runs. */
      const phase = async (name: string, disturb: () => Promise<void>) => {
        const queue = Array.from(
          { length: UPLOADS_PER_PHASE },
          (_, index) => `${name}-${index}-${randomBytes(4).toString('hex')}`,
        );
        keys.push(...queue);
        // Two visitors per slot, next to each other in the queue: two workers book one slot at once.
        const visits = freeSlots
          .splice(0, SLOTS_PER_PHASE)
          .flatMap((slot, index) =>
            [0, 1].map((visitor) => ({ slot, email: `${name}-${index}-${visitor}@example.com` })),
          );
        const work = async () => {
          for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
            const answer = await upload(next);
            if (answer.status !== 200) failed.push(answer);
            await read();
            const visit = visits.shift();
            if (visit) await book(visit.slot, visit.email);
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
      console.info(
        'fleet figures',
        JSON.stringify({ uploads: keys.length, bookings: booked.length, retried, failed: failed.length }),
      );
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
      // Every slot booked exactly once; every visitor told 201 holds that booking.
      const rows = await knex('calendar_bookings')
        .where({ link_id: link.link.id })
        .select('start_at', 'booker_email');
      const bookedSlots = [...new Set(booked.map((visit) => visit.start))];
      expect(rows.map((row) => new Date(row.start_at).toISOString()).sort()).toEqual(
        bookedSlots.map((start) => new Date(start).toISOString()).sort(),
      );
      for (const visit of booked.filter((candidate) => candidate.status === 201)) {
        const row = rows.find(
          (candidate) => new Date(candidate.start_at).getTime() === new Date(visit.start).getTime(),
        );
        expect(row?.booker_email).toBe(visit.email);
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
