// When PGlite answered in-process, the requests queued for its single connection all ran inside one
// event-loop turn, and a client connecting meanwhile waited for that turn to end before its connection
// was even accepted. On its thread (src/db/pglite-thread.ts) every answer arrives as a message: the
// loop turns between the holders of the connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/knex.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';

const onPostgres = process.env.DATABASE_URL !== undefined;

describe.skipIf(onPostgres)('the embedded database and the event loop', () => {
  let environment: TestEnvironment;
  let database: Database;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    database = openDatabase({ databaseUrl: undefined, dataDir: environment.dataDir });
    await database.knex.raw('select 1'); // opened: the statements below queue for a ready connection
  });

  afterAll(async () => {
    await database?.close();
    await environment?.cleanup();
  });

  it('lets the event loop turn while the holders of its single connection take turns', async () => {
    const finished: string[] = [];
    const statements = Array.from({ length: 50 }, (_, index) =>
      database.knex.raw('select 1').then(() => finished.push(`statement ${index}`)),
    );
    // Stands for what only a new turn does: accept a connection, read a request.
    setImmediate(() => finished.push('turn'));
    await Promise.all(statements);
    // In process all fifty finished within the turn they were sent in, so the immediate had not even run
    // when they were through. On the thread the loop turns while they drain; not necessarily after the
    // first answer, because Node handles the messages that have arrived together in one turn (a loaded
    // machine gave two).
    expect(finished.slice(0, 50)).toContain('turn');
  });
});
