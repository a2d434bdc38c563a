import { defineConfig } from 'tsup';

export default defineConfig({
  // The render pool's worker (src/billing/outputs/render-pool.ts) loads dist/render-worker.{js,cjs},
  // beside the bundle that started it.
  entry: { index: 'src/index.ts', 'render-worker': 'src/billing/outputs/render-worker.ts' },
  format: ['esm', 'cjs'],
  // `npm start` needs only JavaScript; `npm test` and releases build the declarations too.
  dts: process.env.AGW_SKIP_DTS !== '1' && { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  // The CommonJS build reads its rules and fonts relative to itself: import.meta.url needs tsup's shim there.
  shims: true,
});
