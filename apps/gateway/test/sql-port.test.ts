// The SQL port (packages/capabilities `Sql`): its implementations on PGlite and on `pg`, the bridge onto a
// knex transaction's connection, and the tenant scope handlers run in. The same cases run on PGlite and,
// when DATABASE_URL is set, on PostgreSQL.
import type { Sql, SqlDatabase } from '@agw/capabilities';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/knex.js';
import { knexTransaction, sqlOfKnexTransaction } from '../src/db/knex-transaction.js';
import { runMigrations } from '../src/db/migrate.js';
import { createPgSqlDatabase } from '../src/db/sql-pg.js';
import { queryAfter } from '../src/db/sql-pg-batch.js';
import { createPgliteSqlDatabase } from '../src/db/sql-pglite.js';
import { runAsTenant, runInTenantSavepoint } from '../src/db/tenant.js';
import { runAsTenantRead } from '../src/db/tenant-read.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';

const ORG_A = '0b7c9f7e-2a1d-4c3b-9e8f-1a2b3c4d5e6f';
const ORG_B = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

let environment: TestEnvironment;
let port: SqlDatabase;
let closePort: () => Promise<void>;
let database: Database;

beforeAll(async () => {
  environment = await createTestEnvironment();
  const url = environment.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    port = createPgSqlDatabase(pool);
    closePort = () => pool.end();
  } else {
    const db = new PGlite();
    port = createPgliteSqlDatabase(db);
    closePort = () => db.close();
  }
  await port.query(
    `create table t (id serial primary key, b bytea, j jsonb, n numeric(12,2), ts timestamptz, i8 bigint)`,
  );
  database = openDatabase({ databaseUrl: url, dataDir: environment.dataDir });
  await runMigrations(database.knex);
  await database.knex.raw(`create table tenant_rows (organization_id uuid not null, label text not null)`);
  await database.knex.raw(`grant select, insert on tenant_rows to agw_runtime`);
  await database.knex.raw(`alter table tenant_rows enable row level security`);
  await database.knex.raw(`create policy tenant_rows_tenant on tenant_rows to agw_runtime
    using (organization_id = agw_current_organization()) with check (organization_id = agw_current_organization())`);
  await database.knex('tenant_rows').insert([
    { organization_id: ORG_A, label: 'a' },
    { organization_id: ORG_B, label: 'b' },
  ]);
});

afterAll(async () => {
  await closePort?.();
  await database?.close();
  await environment?.cleanup();
});

describe(`the SQL port (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('round-trips bytea, jsonb, numeric, timestamptz and bigint the same on both engines', async () => {
    const bytes = new Uint8Array([0, 1, 2, 254, 255]);
    const when = new Date('2026-11-23T08:00:00.123Z');
    const inserted = await port.query<{ id: number }>(
      'insert into t (b, j, n, ts, i8) values ($1, $2, $3, $4, $5) returning id',
      [bytes, JSON.stringify({ list: [1, 'two'], nested: { ok: true } }), '12.5', when, '9007199254740993'],
    );
    expect(inserted.rowCount).toBe(1);
    const { rows } = await port.query<Record<string, unknown>>(
      'select b, j, n, ts, i8 from t where id = $1',
      [inserted.rows[0]?.id],
    );
    const row = rows[0] ?? {};
    expect(row.b).toBeInstanceOf(Uint8Array);
    expect([...(row.b as Uint8Array)]).toEqual([...bytes]);
    expect(row.j).toEqual({ list: [1, 'two'], nested: { ok: true } });
    expect(row.n).toBe('12.50');
    expect(row.ts).toEqual(when);
    expect(row.i8).toBe('9007199254740993');
  });

  it('reuses a named statement and counts changed rows', async () => {
    const statement = { name: 'test.t.count', text: 'select count(*)::int as count from t where n >= $1' };
    const first = await port.query<{ count: number }>(statement.text, ['0'], { name: statement.name });
    const second = await port.query<{ count: number }>(statement.text, ['1000'], { name: statement.name });
    expect(first.rows[0]?.count).toBeGreaterThan(0);
    expect(second.rows[0]?.count).toBe(0);
    const updated = await port.query('update t set n = n + 1 where n is not null');
    expect(updated.rowCount).toBe(first.rows[0]?.count);
  });

  it('commits a transaction, and rolls it back when its function throws', async () => {
    await port.transaction((sql) => sql.query('insert into t (n) values ($1)', ['1.00']));
    const failed = port.transaction(async (sql) => {
      await sql.query('insert into t (n) values ($1)', ['2.00']);
      throw new Error('changed my mind');
    });
    await expect(failed).rejects.toThrow('changed my mind');
    const { rows } = await port.query<{ n: string }>("select n from t where n in ('1.00', '2.00')");
    expect(rows).toEqual([{ n: '1.00' }]);
  });
});

describe('the SQL port on a knex transaction', () => {
  it("runs in the knex transaction: it sees the transaction's rows and rolls back with it", async () => {
    const { knex } = database;
    const attempt = knexTransaction(knex, async (trx) => {
      await trx('tenant_rows').insert({ organization_id: ORG_A, label: 'by knex' });
      const sql = sqlOfKnexTransaction(trx);
      const seen = await sql.query<{ label: string }>('select label from tenant_rows where label = $1', [
        'by knex',
      ]);
      expect(seen.rows).toEqual([{ label: 'by knex' }]);
      await sql.query('insert into tenant_rows (organization_id, label) values ($1, $2)', [ORG_A, 'by port']);
      throw new Error('roll back');
    });
    await expect(attempt).rejects.toThrow('roll back');
    expect(await knex('tenant_rows').whereIn('label', ['by knex', 'by port'])).toEqual([]);
  });

  it('passes `?` (in strings and jsonb operators) through untouched, and refuses to run after the end', async () => {
    let kept: Sql | undefined;
    const answer = await knexTransaction(database.knex, async (trx) => {
      kept = sqlOfKnexTransaction(trx);
      const { rows } = await kept.query<{ has: boolean; text: string }>(
        `select $1::jsonb ?| array['a'] as has, 'why?' as text`,
        [JSON.stringify({ a: 1 })],
      );
      return rows[0];
    });
    expect(answer).toEqual({ has: true, text: 'why?' });
    await expect(kept?.query('select 1')).rejects.toThrow(/ended/);
  });

  it("runs a handler's SQL as the runtime role of one organization, then as the gateway again", async () => {
    const seen = await knexTransaction(database.knex, async (trx) => {
      const sql = sqlOfKnexTransaction(trx);
      const before = await sql.query<{ role: string }>('select current_user as role');
      const inside = await runAsTenant(sql, ORG_A, async (tenant) => {
        const { rows } = await tenant.query<{ label: string }>(
          'select label from tenant_rows order by label',
        );
        const role = await tenant.query<{ role: string }>('select current_user as role');
        return { labels: rows.map((row) => row.label), role: role.rows[0]?.role };
      });
      const after = await trx.raw('select current_user as role, count(*)::int as rows from tenant_rows');
      return { before: before.rows[0]?.role, inside, after: after.rows[0] };
    });
    expect(seen.inside).toEqual({ labels: ['a'], role: 'agw_runtime' });
    expect(seen.after).toEqual({ role: seen.before, rows: 2 });
    expect(seen.before).not.toBe('agw_runtime');
  });

  it("refuses a row written for another organization (the policy's check)", async () => {
    const planted = knexTransaction(database.knex, (trx) =>
      runAsTenant(sqlOfKnexTransaction(trx), ORG_A, (tenant) =>
        tenant.query("insert into tenant_rows (organization_id, label) values ($1, 'planted')", [ORG_B]),
      ),
    );
    await expect(planted).rejects.toThrow(/row-level security/);
    expect(await database.knex('tenant_rows').where({ label: 'planted' })).toEqual([]);
  });

  it("a mutating handler's savepoint: its writes and the role roll back on failure, the transaction goes on", async () => {
    const outcome = await knexTransaction(database.knex, async (trx) => {
      const sql = sqlOfKnexTransaction(trx);
      const failed = await runInTenantSavepoint(sql, ORG_A, async (tenant) => {
        await tenant.query("insert into tenant_rows (organization_id, label) values ($1, 'undone')", [ORG_A]);
        throw new Error('handler failed');
      }).catch((error: Error) => error.message);
      const kept = await runInTenantSavepoint(sql, ORG_A, (tenant) =>
        tenant.query<{ label: string }>(
          "insert into tenant_rows (organization_id, label) values ($1, 'kept') returning label",
          [ORG_A],
        ),
      );
      const after = await trx.raw('select current_user as role');
      return { failed, kept: kept.rows, role: after.rows[0]?.role };
    });
    expect(outcome).toMatchObject({ failed: 'handler failed', kept: [{ label: 'kept' }] });
    expect(outcome.role).not.toBe('agw_runtime');
    expect(
      (await database.knex('tenant_rows').whereIn('label', ['undone', 'kept'])).map((row) => row.label),
    ).toEqual(['kept']);
    const injected = knexTransaction(database.knex, (trx) =>
      runInTenantSavepoint(sqlOfKnexTransaction(trx), "x'; drop table tenant_rows; --", async () => 1),
    );
    await expect(injected).rejects.toThrow(/not a UUID/);
  });

  it("a mutating handler's savepoint goes out with its first statement: a failing first statement is undone, no SQL costs none", async () => {
    const outcome = await knexTransaction(database.knex, async (trx) => {
      const sql = sqlOfKnexTransaction(trx);
      // The first statement itself fails (the policy's check): the transaction goes on.
      const refused = await runInTenantSavepoint(sql, ORG_A, (tenant) =>
        tenant.query("insert into tenant_rows (organization_id, label) values ($1, 'foreign')", [ORG_B]),
      ).catch((error: Error) => error.message);
      // No SQL at all: nothing to open, release or roll back, with or without a failure.
      const quiet = await runInTenantSavepoint(sql, ORG_A, async () => 'no sql');
      const thrown = await runInTenantSavepoint(sql, ORG_A, async () => {
        throw new Error('before any sql');
      }).catch((error: Error) => error.message);
      const after = await trx.raw(
        "select current_user as role, (select count(*)::int from tenant_rows where label = 'foreign') as foreign_rows",
      );
      return { refused, quiet, thrown, after: after.rows[0] };
    });
    expect(outcome.refused).toMatch(/row-level security/);
    expect(outcome).toMatchObject({ quiet: 'no sql', thrown: 'before any sql', after: { foreign_rows: 0 } });
    expect(outcome.after.role).not.toBe('agw_runtime');
  });

  it("a read's handler: every statement as the tenant, in one round trip each, no connection held between them, nothing left behind", async () => {
    const { knex } = database;
    const seen = await runAsTenantRead(knex, ORG_B, async (tenant) => {
      const first = await tenant.query<{ label: string; role: string }>(
        'select label, current_user as role from tenant_rows order by label',
      );
      // A second statement (named, so prepared once per connection) is the tenant's too.
      const second = await tenant.query<{ org: string; count: number }>(
        `select current_setting('agw.organization_id') as org, count(*)::int as count from tenant_rows
          where label = $1`,
        ['a'],
        { name: 'test.tenant-read.count' },
      );
      // Between its statements the read holds no connection: on PGlite, the database's one session.
      const between = await knex.raw('select current_user as role');
      return { first: first.rows, second: second.rows, between: between.rows[0].role !== 'agw_runtime' };
    });
    expect(seen).toEqual({
      first: [{ label: 'b', role: 'agw_runtime' }],
      second: [{ org: ORG_B, count: 0 }],
      between: true,
    });
    const refused = runAsTenantRead(knex, ORG_A, (tenant) =>
      tenant.query("insert into tenant_rows (organization_id, label) values ($1, 'planted')", [ORG_B]),
    );
    await expect(refused).rejects.toThrow(/row-level security/);
    const failed = runAsTenantRead(knex, ORG_A, (tenant) => tenant.query('select * from no_such_table'));
    await expect(failed).rejects.toThrow(/no_such_table/);
    const after = await Promise.all(
      Array.from({ length: 3 }, () =>
        knex.raw(`select current_user as role, current_setting('agw.organization_id', true) as org,
                    (select count(*)::int from tenant_rows where label = 'planted') as planted`),
      ),
    );
    for (const result of after) {
      expect(result.rows[0].role).not.toBe('agw_runtime');
      expect(result.rows[0].org ?? '').toBe('');
      expect(result.rows[0].planted).toBe(0);
    }
    // A statement the handler did not await before its run ended is not sent.
    let kept: Sql | undefined;
    await runAsTenantRead(knex, ORG_B, async (tenant) => {
      kept = tenant;
    });
    await expect(kept?.query('select 1')).rejects.toThrow(/was not sent/);
    await expect(runAsTenantRead(knex, 'not-a-uuid', async () => 1)).rejects.toThrow(/not a UUID/);
  });
});

describe.runIf(process.env.DATABASE_URL)('a batch of leading statements and a query on pg', () => {
  it('answers the last result; a named query that failed to parse or to run is prepared again correctly', async () => {
    const client = new pg.Client({ connectionString: environment.env.DATABASE_URL });
    await client.connect();
    try {
      const lead = [{ text: "select set_config('agw.batch_test', $1, true)", values: ['on'] }];
      const answer = await queryAfter<{ seen: string }>(
        client,
        lead,
        "select current_setting('agw.batch_test') as seen",
      );
      expect(answer.rows).toEqual([{ seen: 'on' }]);
      // The setting was local to the batch's implicit transaction.
      const after = await client.query("select current_setting('agw.batch_test', true) as seen");
      expect(after.rows[0].seen ?? '').toBe('');
      const statement = {
        name: 'test.batch.later',
        text: 'select count(*)::int as n from batch_later where n > $1',
      };
      const missing = queryAfter(client, lead, statement.text, [0], { name: statement.name });
      await expect(missing).rejects.toThrow(/batch_later/);
      await client.query('create temporary table batch_later (n int)');
      await client.query('insert into batch_later values (1), (2)');
      const found = await queryAfter<{ n: number }>(client, lead, statement.text, [0], {
        name: statement.name,
      });
      expect(found.rows).toEqual([{ n: 2 }]);
      // Prepared, then failing at execution: the name stays usable.
      const failing = queryAfter(client, lead, statement.text, ['not a number'], { name: statement.name });
      await expect(failing).rejects.toThrow(/invalid input syntax/);
      const again = await queryAfter<{ n: number }>(client, lead, statement.text, [1], {
        name: statement.name,
      });
      expect(again.rows).toEqual([{ n: 1 }]);
    } finally {
      await client.end();
    }
  });

  it('sends the whole batch in one write on the socket, not a write (a system call) per protocol message', async () => {
    const client = new pg.Client({ connectionString: environment.env.DATABASE_URL });
    await client.connect();
    try {
      const socket = (client as unknown as { connection: { stream: import('node:net').Socket } }).connection
        .stream;
      const lead = [
        { text: 'begin' },
        { text: "select set_config('agw.batch_test', $1, true)", values: ['on'] },
      ];
      const commit = [{ text: 'commit' }];
      // Prepared once, so the measured batch is what a warm connection sends: 4 × Bind, Describe, Execute, one Sync.
      await queryAfter(client, lead, 'select $1::int as n', [1], { name: 'test.batch.writes' }, commit);
      let writes = 0;
      const write = socket._write.bind(socket);
      const writev = socket._writev?.bind(socket);
      socket._write = (...args: Parameters<typeof socket._write>) => {
        writes += 1;
        return write(...args);
      };
      if (writev !== undefined) {
        socket._writev = (...args: Parameters<NonNullable<typeof socket._writev>>) => {
          writes += 1;
          return writev(...args);
        };
      }
      const answer = await queryAfter<{ n: number }>(
        client,
        lead,
        'select $1::int as n',
        [2],
        { name: 'test.batch.writes' },
        commit,
      );
      expect(answer.rows).toEqual([{ n: 2 }]);
      expect(writes).toBe(1);
    } finally {
      await client.end();
    }
  });

  it('parses a named leading statement and a named query once per connection, each batch with its own values', async () => {
    const client = new pg.Client({ connectionString: environment.env.DATABASE_URL });
    await client.connect();
    try {
      const connection = (client as unknown as { connection: { parse: (...args: unknown[]) => void } })
        .connection;
      const parse = connection.parse.bind(connection);
      let parses = 0;
      connection.parse = (...args: unknown[]) => {
        parses += 1;
        parse(...args);
      };
      const seen = async (value: string) => {
        const lead = [
          { name: 'test.lead.enter', text: "select set_config('agw.batch_test', $1, true)", values: [value] },
        ];
        const text = "select current_setting('agw.batch_test') as seen";
        return (await queryAfter<{ seen: string }>(client, lead, text, [], { name: 'test.lead.query' })).rows;
      };
      expect(await seen('first')).toEqual([{ seen: 'first' }]);
      expect(parses).toBe(2);
      expect(await seen('second')).toEqual([{ seen: 'second' }]);
      expect(await seen('third')).toEqual([{ seen: 'third' }]);
      expect(parses).toBe(2);
    } finally {
      await client.end();
    }
  });

  it('a trailing COMMIT commits with the query, and is skipped when the query fails', async () => {
    const client = new pg.Client({ connectionString: environment.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query('create temporary table batch_commit (n int primary key)');
      const insert = 'insert into batch_commit values ($1) returning n';
      const begin = [{ text: 'begin' }];
      const commit = [{ text: 'commit' }];
      const done = await queryAfter<{ n: number }>(client, begin, insert, [1], {}, commit);
      expect(done.rows).toEqual([{ n: 1 }]);
      // A duplicate fails: the COMMIT behind it does not run, the transaction is left for a ROLLBACK.
      await client.query('begin');
      await client.query('insert into batch_commit values (2)');
      await expect(queryAfter(client, [], insert, [1], {}, commit)).rejects.toThrow(/duplicate key/);
      const status = await client.query('select 1').catch((error: Error) => error.message);
      expect(status).toMatch(/current transaction is aborted/);
      await client.query('rollback');
      const rows = await client.query('select n from batch_commit order by n');
      expect(rows.rows).toEqual([{ n: 1 }]);
    } finally {
      await client.end();
    }
  });
});
