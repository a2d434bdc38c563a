import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript source, so tests never run against a stale dist.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const alias = {
  '@agw/contracts': source('./packages/contracts/src/index.ts'),
  '@agw/guard': source('./packages/guard/src/index.ts'),
  '@agw/capabilities': source('./packages/capabilities/src/index.ts'),
  '@agw/client': source('./packages/client/src/index.ts'),
  '@agw/gateway': source('./apps/gateway/src/index.ts'),
};

export default defineConfig({
  resolve: { alias },
  test: {
    restoreMocks: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
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
      { extends: true, test: { name: 'client', root: 'packages/client', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'gateway', root: 'apps/gateway', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'cli', root: 'apps/cli', include: ['test/**/*.test.ts'] } },
    ],
  },
});
