import { defineConfig } from 'tsup';

export default defineConfig({
  // The e-invoice check's worker thread is a file of its own, beside bin.js.
  entry: { bin: 'src/bin.ts', 'einvoice-worker': 'src/commands/einvoice-worker.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
});
