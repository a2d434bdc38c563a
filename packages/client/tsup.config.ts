import { defineConfig } from 'tsup';

const skipDts = process.env.AGW_SKIP_DTS === '1';

// Three entries: the browser-safe SDK, the Node-only IMAP reader (imapflow stays external, a peer)
// and the operator admin client.
export default defineConfig({
  entry: { index: 'src/index.ts', imap: 'src/imap/index.ts', admin: 'src/admin/index.ts' },
  format: ['esm', 'cjs'],
  // `npm start` (AGW_SKIP_DTS=1) builds only JavaScript and keeps the declarations an earlier full build
  // made (tsup's clean removes them when it writes none); `npm test` and releases build them too.
  dts: !skipDts,
  sourcemap: true,
  clean: skipDts ? ['!**/*.d.{ts,cts,mts}'] : true,
  target: 'es2022',
});
