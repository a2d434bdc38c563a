import { defineConfig } from 'tsup';

// Two entries: the browser-safe SDK and the Node-only IMAP reader (imapflow stays external, a peer).
export default defineConfig({
  entry: { index: 'src/index.ts', imap: 'src/imap/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
