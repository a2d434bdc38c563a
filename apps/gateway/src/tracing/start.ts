import type { Logger } from '../logger.js';
import type { Tracing } from './tracing.js';

/**
 * Whether the standard variables ask for traces: an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, and neither OTEL_SDK_DISABLED=true nor
 * OTEL_TRACES_EXPORTER=none says otherwise. Without an endpoint tracing is off: the SDK would otherwise
 * send to localhost:4318, which an operator who set nothing did not ask for.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return endpoint !== undefined && endpoint !== '';
}

/**
 * Starts OpenTelemetry tracing when {@link tracingRequested}, configured by the OTEL_* variables alone;
 * otherwise answers `undefined` and loads nothing of the SDK (a dynamic import), so a gateway without
 * tracing starts and serves exactly as before.
 */
export async function startTracing(
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined;
  const { startOtelTracing } = await import('./otel.js');
  return startOtelTracing(logger, env);
}
