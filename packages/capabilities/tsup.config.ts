import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  // `npm start` needs only JavaScript; `npm test` and releases build the declarations too.
  dts: process.env.AGW_SKIP_DTS !== '1',
  sourcemap: true,
  clean: true,
  target: 'node20',
  // The CommonJS build reads its rules and fonts relative to itself: import.meta.url needs tsup's shim there.
  shims: true,
});
