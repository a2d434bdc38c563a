// The gateway reaches its database drivers only through their public interfaces (issue 27, finding 4):
// the SQL pool is its own (src/db/pool.ts), knex borrows from it through its `connectionPool` option,
// and pg's batch is a Submittable. A read of a driver's private state breaks silently on a minor
// upgrade of knex, knex-pglite or pg; this keeps the next one out of the sources.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SOURCES = new URL('../src/', import.meta.url).pathname;

// What the gateway once read: knex's client (its pool, config, PGlite instance), a knex transaction's
// execution promise, knex's connection markers, pg's per-connection statement caches and Query internals.
const PRIVATE = [
  /\.client\.(acquireConnection|releaseConnection|config|pglite|pool)\b/,
  /\bexecutionPromise\b/,
  /__knex/,
  /\b(parsedStatements|submittedNamedStatements)\b/,
  /Query\.prototype/,
  /\._getRows\b/,
];

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the database drivers', () => {
  it('are used through their public interfaces only: no source reads a private field of knex or pg', () => {
    const found = sources(SOURCES).flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          PRIVATE.some((pattern) => pattern.test(line))
            ? [`${relative(SOURCES, path)}:${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
