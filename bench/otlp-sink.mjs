// An OTLP/HTTP receiver on loopback that reads and discards what it is sent, for measuring what tracing
// costs the gateway (docs/performance.md, "Tracing"): it answers every POST (/v1/traces) with 200 and an
// empty export response (`{}` to JSON, no bytes to protobuf), and prints, on SIGINT/SIGTERM, how many exports and bytes it received.
//   node bench/otlp-sink.mjs [PORT]    (default 4318)
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 node bench/invoke-cpu.mjs --scenarios read
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 4318);
let exports = 0;
let bytes = 0;
const server = createServer((request, response) => {
  request.on('data', (chunk) => {
    bytes += chunk.length;
  });
  request.on('end', () => {
    exports += 1;
    const json = request.headers['content-type']?.startsWith('application/json') === true;
    response.setHeader('content-type', json ? 'application/json' : 'application/x-protobuf');
    response.end(json ? '{}' : '');
  });
});
server.listen(port, '127.0.0.1', () => console.log(`OTLP sink on http://127.0.0.1:${port}`));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.log(`OTLP sink: ${exports} exports, ${bytes} bytes`);
    server.close();
    process.exit(0);
  });
}
