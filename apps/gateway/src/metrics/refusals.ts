import type { Refusal } from '@agw/guard';
import { faultCode } from '../invoke/refusal.js';
import type { GatewayMetrics } from './gateway-metrics.js';

/**
 * Counts a settled run a guard stopped, by the deciding guard (the last entry of its trace) and the code
 * it answers. A challenge (`pending_approval`) is no refusal: the call's outcome counts it.
 */
export function countRefusal(metrics: GatewayMetrics | undefined, refusal: Refusal): void {
  if (metrics === undefined || refusal.outcome === 'challenge') return;
  metrics.refusal(refusal.guard, refusal.outcome === 'deny' ? refusal.decision.code : faultCode(refusal));
}
