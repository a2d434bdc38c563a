import type { MetaTool } from '../meta-tools/answer.js';
import {
  type CapabilityLabel,
  type CountedTool,
  type GatewayMetrics,
  secondsSince,
} from './gateway-metrics.js';
import { answerOutcome, thrownOutcome } from './outcome.js';

/** Catalog capabilities by the `id` and `version` a call names; undefined for one the catalog lacks. */
export type CapabilityResolver = (id: string, version: string | undefined) => CapabilityLabel | undefined;

// A call naming no capability of the catalog: its id is the caller's text and never becomes a label.
const UNKNOWN: CapabilityLabel = { id: 'unknown', version: '' };

/**
 * `tool` counted by capability and outcome, an invoke timed as a whole (both transports call the
 * returned function: HTTP and MCP alike). Without metrics, `tool` itself.
 */
export function countedCalls(
  metrics: GatewayMetrics | undefined,
  name: CountedTool,
  resolve: CapabilityResolver,
  tool: MetaTool,
): MetaTool {
  if (metrics === undefined) return tool;
  return async (call) => {
    const started = process.hrtime.bigint();
    const capability = capabilityOf(resolve, call.body);
    let outcome = 'internal_error';
    try {
      const answer = await tool(call);
      outcome = answerOutcome(answer);
      return answer;
    } catch (thrown) {
      outcome = thrownOutcome(thrown);
      throw thrown;
    } finally {
      metrics.call(name, capability, outcome, secondsSince(started));
    }
  };
}

function capabilityOf(resolve: CapabilityResolver, body: unknown): CapabilityLabel {
  const { id, version } = (body ?? {}) as { id?: unknown; version?: unknown };
  if (typeof id !== 'string') return UNKNOWN;
  return resolve(id, typeof version === 'string' ? version : undefined) ?? UNKNOWN;
}
