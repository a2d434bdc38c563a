import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderError } from '../http/error-envelope.js';
import { GatewayError } from '../http/gateway-error.js';
import { securityHeaders } from '../http/security-headers.js';
import type { Logger } from '../logger.js';
import type { GatewayMetrics } from './gateway-metrics.js';

/** The metrics listener: its URL (`http://127.0.0.1:9464`, the real port when METRICS_PORT=0). */
export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus' text format) on a port of its own, METRICS_HOST:METRICS_PORT,
 * loopback by default: what an operator's Prometheus scrapes never shares the port agents reach, so no
 * agent credential (nor any other) reads it there, and the main port has no `/metrics` at all
 * (docs/observability.md). Anything else here is the error envelope: 404, or 405 for another method.
 */
export async function startMetricsServer(
  metrics: GatewayMetrics,
  options: { readonly host: string; readonly port: number; readonly logger: Logger },
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics')
      return refuse(response, new GatewayError('not_found', { message: 'Only /metrics is served here.' }));
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return refuse(
        response,
        new GatewayError('method_not_allowed', { message: 'Use GET.', headers: { Allow: 'GET, HEAD' } }),
      );
    }
    metrics.exposition().then(
      ({ body, contentType }) => {
        response.writeHead(200, {
          ...securityHeaders,
          'content-type': contentType,
          'cache-control': 'no-store',
        });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'metrics: the exposition failed');
        refuse(
          response,
          new GatewayError('internal_error', { message: 'The metrics could not be collected.' }),
        );
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = urlOf(server);
  options.logger.info({ metrics_url: `${url}/metrics` }, `metrics served on ${url}/metrics`);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function refuse(response: ServerResponse, error: GatewayError): void {
  const rendered = renderError(error, randomUUID());
  const body = JSON.stringify(rendered.body);
  response.writeHead(rendered.status, {
    ...securityHeaders,
    ...rendered.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
  });
  response.end(body);
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
