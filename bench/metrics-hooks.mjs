// What metrics add to one read invoke, measured alone: the CPU of the hooks a free read runs with
// METRICS_PORT set (the request's histogram, the call's counter and histogram, the handler's histogram,
// and per SQL statement the pool's timing wrapper and its histogram), in a tight loop on the gateway's
// own GatewayMetrics. Complements `node bench/invoke-cpu.mjs` with METRICS_PORT set and unset, whose
// per-request CPU is too noisy on a busy machine to resolve a 1 % difference.
//   node --conditions=@agw/source --import tsx bench/metrics-hooks.mjs [--statements 4] [--rounds 5]
import { parseArgs } from 'node:util';
import { timed } from '../apps/gateway/src/db/pool.ts';
import { GatewayMetrics } from '../apps/gateway/src/metrics/gateway-metrics.ts';

const { values: args } = parseArgs({
  options: { statements: { type: 'string', default: '4' }, rounds: { type: 'string', default: '5' } },
});
const statements = Number(args.statements);
const metrics = new GatewayMetrics();
const capability = { id: 'core.org.current.get', version: '1.0.0' };
const hooks = { statement: metrics.statement };
const resolved = Promise.resolve({ rows: [], rowCount: 0 });

const send = () => resolved;

async function oneInvoke() {
  const started = process.hrtime.bigint();
  // The pool's own wrapper (src/db/pool.ts `timed`), as every port statement runs through it.
  for (let index = 0; index < statements; index += 1) await timed(hooks, send, 'SELECT 1');
  metrics.handler(capability, Number(process.hrtime.bigint() - started) / 1e9);
  metrics.call('invoke', capability, 'succeeded', Number(process.hrtime.bigint() - started) / 1e9);
  metrics.request('POST', '/mcp/invoke', 200, Number(process.hrtime.bigint() - started) / 1e9);
}

async function bare() {
  for (let index = 0; index < statements; index += 1) await resolved;
}

async function cpuPer(fn, count) {
  const before = process.cpuUsage();
  for (let index = 0; index < count; index += 1) await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

const count = 200_000;
await cpuPer(oneInvoke, count); // warm-up (series created, code optimized)
await cpuPer(bare, count);
for (let round = 1; round <= Number(args.rounds); round += 1) {
  const withMetrics = await cpuPer(oneInvoke, count);
  const without = await cpuPer(bare, count);
  console.log(
    `round ${round}: ${(withMetrics - without).toFixed(2)} µs of CPU per read invoke for the metrics hooks (${statements} statements)`,
  );
}
