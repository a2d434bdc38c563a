// The embedded database on its worker thread (src/db/pglite-thread.ts): what the gateway and its callers
// notice — the event loop keeps turning while a statement runs, values and errors arrive as PGlite gives
// them, statements run in the order sent, and a closed database says so.
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteThread } from '../src/db/pglite-thread.js';
import { pgliteSql } from '../src/db/sql-pglite.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { copyPgliteTemplate } from './helpers/pglite-template.js';

describe('PGlite on its worker thread', () => {
  let environment: TestEnvironment;
  let db: PGliteThread;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    const directory = join(environment.dataDir, 'thread-test');
    await copyPgliteTemplate(directory);
    db = new PGliteThread(directory, PGlite.defaultStartParams);
    await db.waitReady;
    await db.exec(`create table item (id int primary key, b bytea, j jsonb, n numeric(12, 2),
      ts timestamptz, i8 bigint)`);
  });

  afterAll(async () => {
    await db?.close();
    await environment?.cleanup();
  });

  it('keeps the event loop turning while a long statement runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 5);
    const started = Date.now();
    // A second or so of work in the database (in process it held the loop for all of it).
    await db.query('select sum(i::bigint * i) from generate_series(1, 3000000) as i');
    const elapsed = Date.now() - started;
    clearInterval(timer);
    expect(elapsed).toBeGreaterThan(100);
    // Timers keep firing; in process the loop would not have ticked once during the statement.
    expect(ticks).toBeGreaterThan(elapsed / 5 / 4);
  });

  it('answers values as PGlite does, and int8 as text through the SQL port', async () => {
    const bytes = new Uint8Array([0, 1, 2, 255]);
    const when = new Date('2026-11-26T12:00:00.123Z');
    await db.query('insert into item values (1, $1, $2, $3, $4, $5)', [
      bytes,
      JSON.stringify({ a: [1, 'x'] }),
      '12.34',
      when,
      '9007199254740993',
    ]);
    const { rows } = await db.query<Record<string, unknown>>('select b, j, n, ts, i8 from item where id = 1');
    expect(rows[0]).toEqual({ b: bytes, j: { a: [1, 'x'] }, n: '12.34', ts: when, i8: 9007199254740993n });
    const port = pgliteSql(db);
    const { rows: viaPort } = await port.query<{ i8: unknown }>('select i8 from item where id = 1');
    expect(viaPort[0]?.i8).toBe('9007199254740993');
  });

  it('rejects with the database error, its SQLSTATE and constraint kept, and a value it cannot send', async () => {
    const failure = await db.query('insert into item (id) values (1)').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ code: '23505', constraint: 'item_pkey', severity: 'ERROR' });
    expect((failure as Error).message).toContain('duplicate key');
    // A value that cannot cross to the thread is refused at once, not left waiting.
    await expect(db.query('select $1::text', [() => 1])).rejects.toThrow(/could not be cloned/);
    // The session goes on after a failed statement.
    expect((await db.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  it('runs statements in the order they were sent, also when sent at once', async () => {
    await db.exec('create table seen (n int, at serial)');
    await Promise.all(
      Array.from({ length: 50 }, (_, n) => db.query('insert into seen (n) values ($1)', [n])),
    );
    const { rows } = await db.query<{ n: number }>('select n from seen order by at');
    expect(rows.map((row) => row.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
  });

  it('runs statements before and after a query as one transaction, the trailing ones only after success', async () => {
    await db.exec('create table step (n int primary key)');
    const inserted = await db.queryBetween(
      'begin; insert into step values (1)',
      'insert into step values ($1) returning n',
      [2],
      undefined,
      'commit',
    );
    expect(inserted.rows).toEqual([{ n: 2 }]);
    // The query fails (a duplicate): the COMMIT behind it is not run, the transaction stays open and
    // aborted, and rolling it back leaves neither insert.
    const failed = await db
      .queryBetween(
        'begin; insert into step values (3)',
        'insert into step values (1)',
        [],
        undefined,
        'commit',
      )
      .catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: '23505' });
    await expect(db.query('select 1')).rejects.toMatchObject({ code: '25P02' });
    await db.exec('rollback');
    // A failing leading statement stops there: the query is not run.
    await expect(db.queryBetween('select 1/0', 'insert into step values (4)')).rejects.toMatchObject({
      code: '22012',
    });
    const { rows } = await db.query<{ n: number }>('select n from step order by n');
    expect(rows.map((row) => row.n)).toEqual([1, 2]);
  });

  it('prepares a named statement once and answers it as the unnamed one, values and int8 included', async () => {
    const bytes = new Uint8Array([9, 0, 255]);
    const when = new Date('2026-11-27T18:00:00.456Z');
    const insert = 'insert into item values ($1, $2, $3, $4, $5, $6) returning id, b, j, n, ts, i8';
    const values = [10, bytes, { k: ['v', 2] }, '7.50', when, '9007199254740995'];
    const named = await db.query(insert, values, { name: 'test.item.insert' });
    expect(named.rows).toEqual([
      { id: 10, b: bytes, j: { k: ['v', 2] }, n: '7.50', ts: when, i8: 9007199254740995n },
    ]);
    const select = 'select id, b, j, n, ts, i8 from item where id = $1 or j = $2';
    const unnamed = await db.query(select, [10, null]);
    const port = pgliteSql(db);
    for (let run = 0; run < 2; run += 1) {
      expect((await db.query(select, [10, null], { name: 'test.item.select' })).rows).toEqual(unnamed.rows);
    }
    expect((await port.query('select i8 from item where id = $1', [10], { name: 'test.i8' })).rows).toEqual([
      { i8: '9007199254740995' },
    ]);
    expect(
      (await db.query('update item set n = n + 1 where id = $1', [10], { name: 'test.item.bump' }))
        .affectedRows,
    ).toBe(1);
    // Each text is prepared once: the session holds one statement for each, however often it ran.
    const { rows } = await db.query<{ statement: string }>(
      "select statement from pg_prepared_statements where statement like '%from item where id = $1%'",
    );
    expect(rows.map((row) => row.statement).sort()).toEqual(['select i8 from item where id = $1', select]);
  });

  it('keys a named statement by its text, and fails it as the unnamed one, the session going on', async () => {
    expect((await db.query('select $1::int + 1 as n', [1], { name: 'test.reused' })).rows).toEqual([
      { n: 2 },
    ]);
    expect((await db.query('select $1::text as t', ['x'], { name: 'test.reused' })).rows).toEqual([
      { t: 'x' },
    ]);
    // A text that does not parse is not kept: the next run fails the same way.
    for (let run = 0; run < 2; run += 1) {
      await expect(db.query('selec $1', [1], { name: 'test.typo' })).rejects.toMatchObject({ code: '42601' });
    }
    const insert = 'insert into item (id) values ($1)';
    await expect(db.query(insert, [10], { name: 'test.item.id' })).rejects.toMatchObject({
      code: '23505',
      constraint: 'item_pkey',
    });
    await expect(db.queryBetween('begin', insert, [10], { name: 'test.item.id' })).rejects.toMatchObject({
      code: '23505',
    });
    await expect(db.query(insert, [11], { name: 'test.item.id' })).rejects.toMatchObject({ code: '25P02' });
    await db.exec('rollback');
    expect((await db.query(insert, [11], { name: 'test.item.id' })).affectedRows).toBe(1);
  });

  it('refuses statements once closed, naming why', async () => {
    const directory = join(environment.dataDir, 'thread-closed');
    await copyPgliteTemplate(directory);
    const closing = new PGliteThread(directory, PGlite.defaultStartParams);
    await closing.query('create table kept (n int)');
    await closing.close();
    expect(closing.closed).toBe(true);
    await expect(closing.query('select 1')).rejects.toThrow('The embedded database is closed.');
    // What it wrote is on disk: another instance reads it.
    const reopened = new PGliteThread(directory, PGlite.defaultStartParams);
    expect((await reopened.query('select count(*)::int as n from kept')).rows).toEqual([{ n: 0 }]);
    await reopened.close();
  });
});
