// A statement that hangs on a live PostgreSQL connection (here: waiting for a lock another session
// holds) is cancelled by the server after DATABASE_STATEMENT_TIMEOUT_MS, and the client gets the
// retryable 503 envelope in bounded time instead of a request that never answers. PGlite cannot cancel
// a statement (no timer signal in its WASM build) and has no other session to hold a lock: skipped there.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/knex.js';
import { registration } from './helpers/access-client.js';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

const onPostgres = process.env.DATABASE_URL !== undefined;
const TIMEOUT_MS = 200;

/** Resolves with `promise`, or with 'hung' when it takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

describe.skipIf(!onPostgres)('DATABASE_STATEMENT_TIMEOUT_MS on PostgreSQL', () => {
  const gateway = useGateway({ env: { DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) } });

  it('a request stuck behind a lock answers 503 dependency_unavailable, and the same retry succeeds once the lock is gone', async () => {
    const locker = new pg.Client({ connectionString: gateway.environment.env.DATABASE_URL });
    await locker.connect();
    try {
      // Another session (a migration, an operator's psql) holds the table /register writes to.
      await locker.query('begin');
      await locker.query('lock table apps in access exclusive mode');
      const body = registration();
      const idem = `statement-timeout-${Date.now()}`;
      const started = Date.now();
      const stuck = await within(gateway.client.post('/register', body, { idem }), 5000);
      if (stuck === 'hung')
        throw new Error('POST /register did not answer within 5 s while the lock was held');
      expect(Date.now() - started).toBeLessThan(3000);
      expect(stuck.status).toBe(503);
      const error = expectEnvelope(stuck.json, 'dependency_unavailable');
      expect(error.retryable).toBe(true);
      expect(stuck.headers.get('retry-after')).toBe('5');
      // Never the driver's words on the wire.
      expect(stuck.text).not.toMatch(/statement timeout|canceling|apps/i);

      await locker.query('rollback');
      // Nothing of the cancelled attempt was kept (not even its idempotency claim): the retry runs.
      const retried = await gateway.client.post('/register', body, { idem });
      expect(retried.status).toBe(201);
      expect(retried.json.app.slug).toBe(body.app.slug);
    } finally {
      await locker.end();
    }
  });

  it('applies to every pooled connection, 30 s when unset', async () => {
    const shown = await Promise.all(
      Array.from({ length: 3 }, () =>
        gateway.knex.transaction(async (trx) => (await trx.raw('show statement_timeout')).rows[0]),
      ),
    );
    expect(shown).toEqual(Array(3).fill({ statement_timeout: `${TIMEOUT_MS}ms` }));
    const database = openDatabase({
      databaseUrl: gateway.environment.env.DATABASE_URL,
      dataDir: gateway.dataDir,
    });
    try {
      expect((await database.knex.raw('show statement_timeout')).rows[0]).toEqual({
        statement_timeout: '30s',
      });
    } finally {
      await database.close();
    }
  });
});
