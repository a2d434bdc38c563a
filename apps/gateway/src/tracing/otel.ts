import { trace } from '@opentelemetry/api';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';
import { redactUrl } from '../config.js';
import type { Logger } from '../logger.js';
import { GATEWAY_VERSION } from '../version.js';
import { createSpans } from './spans.js';
import type { Tracing } from './tracing.js';

// The SDK registers process-wide globals (tracer provider, context manager, propagator): one per process,
// shared by every gateway started in it and stopped with the last one.
let running: { readonly sdk: NodeSDK; users: number } | undefined;

/**
 * Starts the NodeSDK with nothing but the OTEL_* variables (exporter and protocol, endpoint, headers,
 * sampler, batch delays, propagators, resource attributes): traces only — metrics are /metrics
 * (src/metrics), logs are pino's — and no auto-instrumentation: the spans are the gateway's own
 * (src/tracing/spans.ts). Loaded only when tracing is on (src/tracing/start.ts).
 */
export function startOtelTracing(logger: Logger, env: NodeJS.ProcessEnv): Tracing {
  if (running === undefined) {
    const sdk = new NodeSDK({
      ...(serviceNamed(env) ? {} : { serviceName: 'agw-gateway' }),
      // The process detector would export the command line, which may carry a secret flag; the
      // environment and host detectors unless OTEL_NODE_RESOURCE_DETECTORS chooses.
      ...(env.OTEL_NODE_RESOURCE_DETECTORS === undefined
        ? { resourceDetectors: [resources.envDetector, resources.hostDetector] }
        : {}),
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
    });
    sdk.start();
    running = { sdk, users: 0 };
    const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
    logger.info(
      {
        // A collector URL may carry its credentials (user:token@).
        endpoint: endpoint === undefined ? undefined : redactUrl(endpoint),
        protocol:
          env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
        sampler: env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on',
      },
      'OpenTelemetry tracing on',
    );
  }
  const shared = running;
  shared.users += 1;
  let stopped = false;
  return {
    ...createSpans(trace.getTracer('@agw/gateway', GATEWAY_VERSION)),
    async shutdown() {
      if (stopped) return;
      stopped = true;
      shared.users -= 1;
      // Another gateway of this process still traces: its stop exports what is buffered.
      if (shared.users > 0) return;
      running = undefined;
      await shared.sdk.shutdown().catch((error: unknown) => {
        logger.warn({ err: error }, 'OpenTelemetry: the last spans could not be exported');
      });
    },
  };
}

/** OTEL_SERVICE_NAME, or service.name among OTEL_RESOURCE_ATTRIBUTES: then the operator named it. */
function serviceNamed(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SERVICE_NAME?.trim()) return true;
  return /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
}
