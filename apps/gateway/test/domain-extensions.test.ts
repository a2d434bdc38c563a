// A domain declares the PostgreSQL extensions its tables need (`CapabilityDomain.extensions`); the
// gateway loads exactly those into the embedded database and creates them before migrating, instead of
// knowing that the calendar needs btree_gist.
import { join } from 'node:path';
import { calendarDomain, capabilityExtensions } from '@agw/capabilities';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExtensionModules } from '../src/db/extensions.js';
import { PGliteThread } from '../src/db/pglite-thread.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { copyPgliteTemplate } from './helpers/pglite-template.js';

describe('the PostgreSQL extensions a domain declares', () => {
  let environment: TestEnvironment;
  beforeAll(async () => {
    environment = await createTestEnvironment();
  });
  afterAll(async () => {
    await environment?.cleanup();
  });

  /** An embedded database loaded with `extensions`: whether `create extension btree_gist` succeeds. */
  async function createsBtreeGist(name: string, extensions: readonly string[]): Promise<string> {
    const directory = join(environment.dataDir, name);
    await copyPgliteTemplate(directory);
    const db = new PGliteThread(directory, PGlite.defaultStartParams, extensions);
    try {
      await db.waitReady;
      await db.exec('create extension if not exists btree_gist');
      return 'created';
    } catch (error) {
      return (error as Error).message;
    } finally {
      await db.close();
    }
  }

  it('the calendar declares btree_gist, and the gateway gathers it', () => {
    expect(calendarDomain.extensions).toEqual(['btree_gist']);
    expect(capabilityExtensions).toContain('btree_gist');
  });

  it('the embedded database loads the declared extensions, and only those', async () => {
    expect(await createsBtreeGist('declared', capabilityExtensions)).toBe('created');
    expect(await createsBtreeGist('none', [])).toMatch(/btree_gist/);
  });

  it('an extension the embedded database does not ship stops the start, naming it', () => {
    expect(() => pgliteExtensionModules(['postgis'])).toThrow(
      'A domain needs the PostgreSQL extension postgis, which the embedded database (PGlite) does not ship.',
    );
    expect(() => pgliteExtensionModules(['x"; drop table organizations; --'])).toThrow(
      /not an extension name/,
    );
  });
});
