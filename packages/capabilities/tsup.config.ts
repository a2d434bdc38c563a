import { defineConfig } from 'tsup';

const skipDts = process.env.AGW_SKIP_DTS === '1';

export default defineConfig({
  // The render pool's worker (src/billing/outputs/render-pool.ts) loads dist/render-worker.{js,cjs},
  // beside the bundle that started it.
  entry: { index: 'src/index.ts', 'render-worker': 'src/billing/outputs/render-worker.ts' },
  format: ['esm', 'cjs'],
  // `npm start` (AGW_SKIP_DTS=1) builds only JavaScript and keeps the declarations an earlier full build
  // made (tsup's clean removes them when it writes none); `npm test` and releases build them too.
  dts: !skipDts && { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: skipDts ? ['!**/*.d.{ts,cts,mts}'] : true,
  target: 'node20',
  // ESM-only and small: bundled, so the CommonJS build never `require`s an ES module (Node 20 before
  // 20.19 cannot); a devDependency for that reason.
  noExternal: ['@sindresorhus/slugify', '@sindresorhus/transliterate', 'escape-string-regexp'],
  // The CommonJS build reads its rules and fonts relative to itself: import.meta.url needs tsup's shim there.
  shims: true,
});
