// The baseline: a bare Koa JSON echo on the same machine, measured in the same run as the gateway.
// GET answers a small JSON object, POST echoes the parsed JSON body. Started by run.mjs as its own process.
import { createRequire } from 'node:module';

// Koa is a dependency of the gateway, not of the root: resolve it from there so both run the same Koa.
const require = createRequire(new URL('../apps/gateway/package.json', import.meta.url));
const Koa = require('koa');

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'POST') {
    const chunks = [];
    for await (const chunk of ctx.req) chunks.push(chunk);
    ctx.body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } else {
    ctx.body = { status: 'ok', timestamp: new Date().toISOString() };
  }
});
const server = app.listen(0, '127.0.0.1', () => {
  process.send?.({ port: server.address().port });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
// The bench keeps the echo running between its scenarios: it must not outlive a bench that failed.
process.on('disconnect', () => process.exit(0));
