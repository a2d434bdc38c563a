import { defineConfig } from 'tsup';

// Three entries: the browser-safe SDK, the Node-only IMAP reader (imapflow stays external, a peer)
// and the operator admin client.
export default defineConfig({
  entry: { index: 'src/index.ts', imap: 'src/imap/index.ts', admin: 'src/admin/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
