import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript source, so tests never run against a stale dist.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
// Exact-match patterns, so a subpath such as '@agw/client/imap' is not rewritten as a prefix.
const alias = [
  { find: /^@agw\/contracts$/, replacement: source('./packages/contracts/src/index.ts') },
  { find: /^@agw\/guard$/, replacement: source('./packages/guard/src/index.ts') },
  { find: /^@agw\/capabilities$/, replacement: source('./packages/capabilities/src/index.ts') },
  { find: /^@agw\/client$/, replacement: source('./packages/client/src/index.ts') },
  { find: /^@agw\/client\/imap$/, replacement: source('./packages/client/src/imap/index.ts') },
  { find: /^@agw\/client\/admin$/, replacement: source('./packages/client/src/admin/index.ts') },
  { find: /^@agw\/gateway$/, replacement: source('./apps/gateway/src/index.ts') },
];

export default defineConfig({
  resolve: { alias },
  test: {
    restoreMocks: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A poll waits for what a page or a background writer does next; on a loaded 2-core machine that
    // can take longer than the default second (a browser test's next month, fetched and rendered).
    expect: { poll: { timeout: 5_000 } },
    projects: [
      {
        extends: true,
        test: { name: 'contracts', root: 'packages/contracts', include: ['test/**/*.test.ts'] },
      },
      { extends: true, test: { name: 'guard', root: 'packages/guard', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'capabilities', root: 'packages/capabilities', include: ['test/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'client',
          root: 'packages/client',
          include: ['test/**/*.test.ts'],
          // Type tests (*.test-d.ts) are checked by tsc through vitest, never executed.
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      {
        extends: true,
        test: {
          name: 'gateway',
          root: 'apps/gateway',
          include: ['test/**/*.test.ts'],
          // Its files share one module graph instead of importing the gateway afresh each (113 of 470 s
          // here). Each starts and closes its own gateway and mocks no module, so nothing else is shared.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'cli',
          root: 'apps/cli',
          // The CLI is an HTTP client of the gateway: on the PostgreSQL pass (DATABASE_URL) only the files
          // where the CLI itself opens the database (`agw migrate`, `agw serve`, the operator commands
          // without a gateway) run again; the rest would test the gateway on PostgreSQL a second time,
          // which the gateway project does (CI's time budget, docs/testing.md).
          include: process.env.DATABASE_URL
            ? ['test/cli.test.ts', 'test/operator-commands.test.ts']
            : ['test/**/*.test.ts'],
        },
      },
      // Faults, races, fuzzing, tenancy and secrets in logs across the whole gateway (issue 6).
      {
        extends: true,
        test: { name: 'reliability', root: 'tests/reliability', include: ['**/*.test.ts'] },
      },
      // The docs: every markdown link resolves, generated sections match the code (issue 27).
      { extends: true, test: { name: 'docs', root: 'tests/docs', include: ['*.test.ts'] } },
    ],
  },
});
