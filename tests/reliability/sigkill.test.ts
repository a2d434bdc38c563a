// A gateway process is SIGKILLed while a burst of uploads is in flight (security rules §1.4 #9, §8.3
// #6). A new process on the same database takes over; every client retries its request with the same
// idempotency key until it gets a final answer, as the SDK does. What a client sees: a claim the dead
// process left answers 409 `idempotency_request_in_progress` only until its lease (15 s) runs out, then
// the retry runs; every key ends with exactly one document and one charge; a replay answers the same
// body. Runs on PostgreSQL (DATABASE_URL) and on the embedded default, where the new process must open
// the PGlite files the killed one left (PGlite is single-process: the test reads the tables only while
// no gateway runs).
import { randomBytes } from 'node:crypto';
import { hashIdempotencyKey, openDatabase, rollUpCharges, SecretBox } from '@agw/gateway';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, onboard } from '../../apps/gateway/test/helpers/access-client.js';
import { createTestEnvironment, type TestEnvironment } from '../../apps/gateway/test/helpers/environment.js';
import { withGatewayTables } from './helpers/gateway-tables.js';
import { sleep } from './helpers/net.js';
import { kill, type Served, serve, stop } from './helpers/serve.js';
import { type TimedAnswer, timedCall } from './helpers/timed-call.js';

const BURST = 40;
const BOUND_MS = 10_000;
/** The idempotency lease (apps/gateway/src/idempotency/store.ts). */
const LEASE_MS = 15_000;
/** Every key has its final answer this long after the new process is up. */
const SETTLE_BOUND_MS = LEASE_MS + 15_000;

/** Answers a client retries with the same key: no answer at all, the twin still running, 503. */
function retryable(answer: TimedAnswer): boolean {
  return (
    answer.status === 0 ||
    answer.status === 503 ||
    (answer.status === 409 && answer.json?.error?.code === 'idempotency_request_in_progress')
  );
}

/** The answer body without the replay flag, for comparing a first answer with its replays. */
function body(answer: TimedAnswer): string {
  const { replayed: _replayed, ...rest } = answer.json as Record<string, unknown>;
  return JSON.stringify(rest);
}

describe('agw serve SIGKILLed mid-burst, restarted on the same database', () => {
  let environment: TestEnvironment;
  let env: Record<string, string>;
  let pgKnex: Knex | undefined;
  let first: Served | undefined;
  let second: Served | undefined;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    env = {
      ...environment.env,
      // Both processes must fingerprint requests alike (the same DATA_DIR would give the same key too).
      SECRET_KEY: randomBytes(32).toString('hex'),
      RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '999999',
      RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '999999',
    };
    if (environment.usesPostgres) pgKnex = openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: '' }).knex;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([kill(first), stop(second)]);
    await pgKnex?.destroy();
    await environment?.cleanup();
  });

  const withTables = <T>(action: (knex: Knex) => Promise<T>) =>
    withGatewayTables(pgKnex, environment.dataDir, action);

  it('every key ends with one document and one charge; dead claims clear within the lease', async () => {
    first = await serve(env);
    const flow = await onboard(new AccessClient(first.url));
    const { installationKey: key, installationId } = flow;
    if (!pgKnex) await stop(first);
    const organizationId = await withTables(async (knex) => {
      await knex('installations')
        .where({ id: installationId })
        .update({ owner_verified_at: knex.fn.now(), operator_approval_status: 'approved' });
      const row = await knex('installations').where({ id: installationId }).first();
      await knex('wallets').insert({ organization_id: row.organization_id, balance: '1000' });
      return row.organization_id as string;
    });
    if (!pgKnex) first = await serve(env);
    const requests = Array.from({ length: BURST }, (_, index) => {
      const idempotencyKey = `sigkill-${index}-${randomBytes(6).toString('hex')}`;
      return {
        id: 'documents.document.upload',
        params: {
          file_name: `${idempotencyKey}.txt`,
          mime_type: 'text/plain',
          content_base64: Buffer.from(`sigkill ${idempotencyKey}`).toString('base64'),
        },
        idempotency_key: idempotencyKey,
      };
    });
    const call = (served: Served, request: (typeof requests)[number]) =>
      timedCall(`${served.url}/mcp/invoke`, { key, body: request, boundMs: BOUND_MS });

    // The burst; the process dies once the first few answers are out, so the rest are cut off at
    // every stage (queued, claimed, inside the transaction, committed but unanswered).
    let answered = 0;
    const burst = requests.map((request) =>
      call(first as Served, request).then((answer) => {
        answered += 1;
        return answer;
      }),
    );
    const deadline = performance.now() + BOUND_MS;
    while (answered < 3 && performance.now() < deadline) await sleep(2);
    const killedAt = performance.now();
    await kill(first);
    const before = await Promise.all(burst);
    const cutOff = before.filter((answer) => answer.status === 0).length;
    // Claims the dead process left behind (in_progress rows nobody will finish or release).
    const orphaned = pgKnex
      ? Number(
          (
            await pgKnex('idempotency_keys')
              .where({ scope_tenant: organizationId, state: 'in_progress' })
              .count<{ n: string }[]>('* as n')
          )[0]?.n,
        )
      : 'not read on PGlite';

    second = await serve(env);
    const upAt = performance.now();
    const final: TimedAnswer[] = [...before];
    let blocked = 0;
    let lastBlockedAt = upAt;
    await Promise.all(
      requests.map(async (request, index) => {
        while (retryable(final[index] as TimedAnswer) && performance.now() - upAt < SETTLE_BOUND_MS) {
          const answer = await call(second as Served, request);
          if (answer.status === 409) {
            blocked += 1;
            lastBlockedAt = performance.now();
          }
          final[index] = answer;
          if (retryable(answer)) await sleep(500);
        }
      }),
    );
    const figures = {
      burst: BURST,
      answered_before_kill: before.filter((answer) => answer.status !== 0).length,
      cut_off: cutOff,
      backend: pgKnex ? 'postgres' : 'pglite',
      orphaned_claims: orphaned,
      restart_ms: Math.round(upAt - killedAt),
      blocked_409s: blocked,
      retries_blocked_ms_after_restart: Math.round(lastBlockedAt - upAt),
      all_final_ms_after_restart: Math.round(performance.now() - upAt),
    };
    console.info('sigkill figures', JSON.stringify(figures));

    // Some calls were really cut off, or the test proved nothing.
    expect(cutOff).toBeGreaterThan(0);
    // A dead claim blocks retries only until its lease, taken before the kill, runs out.
    expect(lastBlockedAt - killedAt).toBeLessThan(LEASE_MS + 2000);
    // Every key got its final answer, a success, within the bound.
    expect(final.map((answer) => answer.status)).toEqual(requests.map(() => 200));
    // Replays, from the new process: the same body for every key, flagged as a replay.
    const replays = await Promise.all(requests.map((request) => call(second as Served, request)));
    for (const [index, replay] of replays.entries()) {
      expect(replay.status).toBe(200);
      expect(replay.json.replayed).toBe(true);
      expect(body(replay)).toBe(body(final[index] as TimedAnswer));
    }
    if (!pgKnex) await stop(second);
    await withTables(async (knex) => {
      // Exactly one document and one charge per key, nothing else.
      for (const [index, request] of requests.entries()) {
        const answer = final[index] as TimedAnswer;
        const documents = await knex('documents').where({ id: answer.json.result.document.id });
        expect(documents).toHaveLength(1);
        const charges = await knex('wallet_ledger').where({
          // The charge scope holds the key's keyed hash, never the key (issue 12, finding 2).
          idempotency_scope: `idempotency:${installationId}:${hashIdempotencyKey(
            new SecretBox(Buffer.from(env.SECRET_KEY as string, 'hex')),
            request.idempotency_key,
          )}`,
          kind: 'charge',
        });
        expect(charges).toHaveLength(1);
      }
      expect(await knex('documents').where({ organization_id: organizationId })).toHaveLength(BURST);
      expect(
        await knex('wallet_ledger').where({ organization_id: organizationId, kind: 'charge' }),
      ).toHaveLength(BURST);
      // The charges of the killed process fold into the balance exactly once.
      await rollUpCharges(knex);
      const wallet = await knex('wallets').where({ organization_id: organizationId }).first();
      expect(wallet.balance).toBe((1000 - BURST * 0.02).toFixed(6));
      // No claim stays stuck.
      expect(
        await knex('idempotency_keys').where({ scope_tenant: organizationId, state: 'in_progress' }),
      ).toHaveLength(0);
    });
  }, 90_000);
});
