import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  // `npm start` needs only JavaScript; `npm test` and releases build the declarations too.
  dts: process.env.AGW_SKIP_DTS !== '1',
  sourcemap: true,
  clean: true,
  // `import.meta.url` in the CommonJS build too (src/db/pglite-thread.ts resolves PGlite's files from it).
  shims: true,
  target: 'node20',
});
