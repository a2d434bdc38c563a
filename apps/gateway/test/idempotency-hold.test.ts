// The invoke's hold of its idempotency key (src/idempotency/store.ts `hold`): the key is held by the
// run's own transaction, nothing is written under it before the answer, and the request path's claims
// (`begin`) and the hold respect each other. Two sessions at once need PostgreSQL (PGlite has one).
import { randomBytes, randomUUID } from 'node:crypto';
import { IdempotencyStore, knexTransaction, SecretBox } from '@agw/gateway';
import { describe, expect, it } from 'vitest';
import { sqlPoolOf, type TransactionSql } from '../src/db/pool.js';
import { notStoredReason } from '../src/idempotency/statements.js';
import type { IdempotencyScope } from '../src/idempotency/store.js';
import { useGateway } from './helpers/gateway.js';

const gateway = useGateway();
const store = () => new IdempotencyStore(gateway.knex, new SecretBox(randomBytes(32)));
/** What a held run stores: `text` as a 200 answer of the fingerprint `f1`, no audit rows. */
const answerOf = (scope: IdempotencyScope, text: string) => ({
  scope,
  fingerprint: 'f1',
  response: { status: 200, contentType: 'application/json; charset=utf-8', body: Buffer.from(text) },
  encrypt: false,
  rows: [],
});
const scope = () => ({ tenant: 'org-hold-test', principal: 'key-1', key: `hold-key-${randomUUID()}` });
const onConnection = <T>(fn: (sql: TransactionSql) => Promise<T>) =>
  sqlPoolOf(gateway.knex).connection((sql) => fn(sql));
const rowsOf = (key: string) => gateway.knex('idempotency_keys').where({ idem_key: key });
/**
 * `first` holds `held` on one connection (its answer, or the error it threw); while that transaction is
 * still open, `second` does the same on another. Both transactions are rolled back. A hold that waited
 * for the lock instead of answering would never return: the first transaction ends only after it.
 */
async function twoHolds(ids: IdempotencyStore, held: IdempotencyScope) {
  const holdOn = (sql: TransactionSql) => ids.hold(sql, held, 'f1').catch((error: unknown) => error);
  return onConnection(async (first) => {
    const one = await holdOn(first);
    const two = await onConnection(async (second) => {
      const result = await holdOn(second);
      await second.exec('rollback');
      return result;
    });
    await first.exec('rollback');
    return { one, two };
  });
}

describe("the invoke's hold of its key", () => {
  it('writes nothing before the answer; the answer is stored once and replayed to the same request only', async () => {
    const ids = store();
    const held = scope();
    await onConnection(async (sql) => {
      expect(await ids.hold(sql, held, 'f1')).toEqual({ kind: 'held' });
      // Seen from another session (PostgreSQL: PGlite's one session is this one): no claim row.
      if (process.env.DATABASE_URL) expect(await rowsOf(held.key)).toHaveLength(0);
      await ids.storeAndCommit(sql, answerOf(held, '{"a":1}'));
    });
    const [row] = await rowsOf(held.key);
    expect(row).toMatchObject({
      state: 'completed',
      fingerprint: 'f1',
      locked_by: null,
      response_status: 200,
    });
    await onConnection(async (sql) => {
      const replay = await ids.hold(sql, held, 'f1');
      expect(replay.kind === 'replay' && replay.response.body.toString()).toBe('{"a":1}');
      await expect(ids.hold(sql, held, 'f2')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
      await sql.exec('rollback');
    });
  });

  it('a rolled-back run leaves the key free: the next run holds it', async () => {
    const ids = store();
    const held = scope();
    await onConnection(async (sql) => {
      await ids.hold(sql, held, 'f1');
      await sql.exec('rollback');
      expect(await ids.hold(sql, held, 'f1')).toEqual({ kind: 'held' });
      await sql.exec('rollback');
    });
    expect(await rowsOf(held.key)).toHaveLength(0);
  });

  it("a request-path claim: answered 409 while its lease lasts, replaced by the run's answer once it ran out", async () => {
    const ids = store();
    const held = scope();
    expect(await ids.begin(held, 'f1', 'request-a')).toEqual({ kind: 'claimed' });
    await onConnection(async (sql) => {
      await expect(ids.hold(sql, held, 'f1')).rejects.toMatchObject({
        code: 'idempotency_request_in_progress',
      });
      await sql.exec('rollback');
    });
    await rowsOf(held.key).update({ lease_expires_at: gateway.knex.raw("now() - interval '1 second'") });
    await onConnection(async (sql) => {
      expect(await ids.hold(sql, held, 'f1')).toEqual({ kind: 'held' });
      await ids.storeAndCommit(sql, answerOf(held, '{"b":2}'));
    });
    // The claim's holder lost it: its fence turns it away.
    await expect(
      knexTransaction(gateway.knex, (trx) => ids.fence(trx, held, 'request-a')),
    ).rejects.toMatchObject({ code: 'idempotency_request_in_progress' });
    const [row] = await rowsOf(held.key);
    expect(row).toMatchObject({ state: 'completed', locked_by: null });
    expect(Buffer.from(row.response_body).toString()).toBe('{"b":2}');
  });

  it.runIf(process.env.DATABASE_URL)(
    'a second run of the key while the first holds it: 409 at once, not a wait',
    async () => {
      const ids = store();
      const held = scope();
      const { one, two } = await twoHolds(ids, held);
      expect(one).toEqual({ kind: 'held' });
      expect(two).toMatchObject({ code: 'idempotency_request_in_progress' });
    },
  );

  it.runIf(process.env.DATABASE_URL)(
    'replays of a stored answer at once: each replays, none is told the key is in use',
    async () => {
      const ids = store();
      const held = scope();
      await onConnection(async (sql) => {
        await ids.hold(sql, held, 'f1');
        await ids.storeAndCommit(sql, answerOf(held, '{"d":4}'));
      });
      // The first replay's transaction stays open (and took the lock) while the second asks.
      const { one, two } = await twoHolds(ids, held);
      const replay = { kind: 'replay', response: { body: Buffer.from('{"d":4}') } };
      expect(one).toMatchObject(replay);
      expect(two).toMatchObject(replay);
    },
  );

  it.runIf(process.env.DATABASE_URL)(
    'a claim made while the run held the key: the run stores nothing and rolls back',
    async () => {
      const ids = store();
      const held = scope();
      await onConnection(async (sql) => {
        expect(await ids.hold(sql, held, 'f1')).toEqual({ kind: 'held' });
        // Another process's request path claims the key (the hold writes no row it could conflict with).
        expect(await ids.begin(held, 'f1', 'request-b')).toEqual({ kind: 'claimed' });
        const failed = await ids.storeAndCommit(sql, answerOf(held, '{"c":3}')).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(notStoredReason(failed)).toBe('stored');
        await sql.exec('rollback');
      });
      const [row] = await rowsOf(held.key);
      expect(row).toMatchObject({ state: 'in_progress', locked_by: 'request-b' });
    },
  );
});
