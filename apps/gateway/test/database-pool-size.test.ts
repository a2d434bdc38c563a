// DATABASE_POOL_SIZE: how many PostgreSQL sessions one gateway process opens at most. Requests beyond it
// wait for a session rather than open another; the default follows the machine's cores (src/db/knex.ts).
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { defaultPoolSize, openDatabase } from '../src/db/knex.js';

const url = process.env.DATABASE_URL;

/** The server processes that answered `count` statements sent at once, each holding its session 150 ms. */
async function sessionsServing(databasePoolSize: number | undefined, count: number): Promise<Set<number>> {
  const database = openDatabase({ databaseUrl: url, dataDir: tmpdir(), databasePoolSize });
  try {
    const results = await Promise.all(
      Array.from({ length: count }, () =>
        database.pool.query<{ pid: number }>('select pg_backend_pid() as pid, pg_sleep(0.15)'),
      ),
    );
    return new Set(results.map((result) => Number(result.rows[0]?.pid)));
  } finally {
    await database.close();
  }
}

describe('the default pool size', () => {
  it('is twice the cores, at least 4 and at most 10', () => {
    expect([1, 2, 3, 4, 5, 64].map((cores) => defaultPoolSize(cores))).toEqual([4, 4, 6, 8, 10, 10]);
  });
});

describe.skipIf(url === undefined)('DATABASE_POOL_SIZE on PostgreSQL', () => {
  it('caps the sessions one process opens: 6 statements at once through a pool of 2 all answer, on 2 sessions', async () => {
    expect((await sessionsServing(2, 6)).size).toBe(2);
  });

  it('unset, the pool opens as many sessions as the default allows', async () => {
    expect((await sessionsServing(undefined, 12)).size).toBe(defaultPoolSize());
  });
});

describe.skipIf(url === undefined)('the maintenance session on PostgreSQL', () => {
  it('answers at once while every request session is busy (the roll-up and the sealer run on it, src/server.ts)', async () => {
    const database = openDatabase({ databaseUrl: url, dataDir: tmpdir(), databasePoolSize: 2 });
    try {
      const finished: string[] = [];
      const busy = [1, 2].map((n) =>
        database.pool.query('select pg_sleep(1)').then(() => finished.push(`request ${n}`)),
      );
      // Both request sessions are taken before the maintenance statement is sent.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const maintenance = database.maintenance.raw('select 1').then(() => finished.push('maintenance'));
      await Promise.all([...busy, maintenance]);
      expect(finished[0]).toBe('maintenance');
    } finally {
      await database.close();
    }
  });
});
