import type { CapabilityHandler } from '@agw/capabilities';
import { CapabilityError } from '@agw/capabilities';
import { INTERFACE_VERSION, type InvokeResponse } from '@agw/contracts';
import {
  type ExecutableRun,
  type GuardCapability,
  GuardDenied,
  type Principal,
  type SettleWrites,
} from '@agw/guard';
import { dependencyUnavailable, GatewayError, isDependencyFailure } from '../http/gateway-error.js';
import { secondsSince } from '../metrics/gateway-metrics.js';
import { countRefusal } from '../metrics/refusals.js';
import { callHandler } from './handler-context.js';
import { capabilityDenial, denialError, refusalError } from './refusal.js';
import type { InvokeRuntime } from './runtime.js';
import type { UnitOfWork } from './unit-of-work.js';

/** The outcome of a capability run, settled (`succeeded`: a 200 body; `refused`: an error and its audit). */
export type Executed = (
  | { readonly kind: 'succeeded'; readonly body: InvokeResponse }
  | { readonly kind: 'refused'; readonly error: GatewayError; readonly auditId: string }
) & {
  /** With `returnWrites`: the charge and audit records the caller writes with its answer. */
  readonly writes?: SettleWrites;
};

/** What runs: the capability, its handler and the params the schema guard accepted. */
export interface CapabilityCall {
  readonly contract: GuardCapability;
  readonly handler: CapabilityHandler<never>;
  readonly params: unknown;
}

/**
 * Executes an admitted (invoke) or restored (job) run in `unit`: audit, billing, egress; the handler as
 * the tenant's runtime role (src/invoke/handler-context.ts); one settle (charge on success, outcome
 * audit record), its ports writing where `unit` says (src/invoke/unit-of-work.ts).
 */
export async function executeCapability(
  runtime: InvokeRuntime,
  unit: UnitOfWork,
  run: ExecutableRun<Principal>,
  call: CapabilityCall,
  options: { readonly returnWrites?: boolean } = {},
): Promise<Executed> {
  const { contract } = call;
  const { metrics } = runtime;
  const executed = await run.execute(
    async ({ principal, egressHosts, reportCost }) => {
      const started = metrics === undefined ? 0n : process.hrtime.bigint();
      try {
        return await callHandler(runtime, unit, {
          handler: call.handler,
          params: call.params,
          principal,
          egressHosts,
          mutating: contract.mutating,
          reportCost,
        });
      } finally {
        metrics?.handler(contract, secondsSince(started));
      }
    },
    { classify: handlerRefusal, returnWrites: options.returnWrites === true, unit },
  );
  const auditId = executed.settlement.auditId ?? '';
  const { writes } = executed.settlement;
  const returned = writes === undefined ? {} : { writes };
  if (executed.outcome === 'failed')
    return { kind: 'refused', error: executed.failure, auditId, ...returned };
  if (executed.outcome !== 'succeeded') {
    countRefusal(metrics, executed);
    return { kind: 'refused', error: refusalError(executed), auditId, ...returned };
  }
  const { chargedCredits } = executed.settlement;
  if (chargedCredits !== undefined) metrics?.charged(contract, chargedCredits);
  return {
    ...returned,
    kind: 'succeeded',
    body: {
      interface_version: INTERFACE_VERSION,
      status: 'succeeded',
      capability_id: contract.id,
      resolved_version: contract.version,
      audit_id: auditId,
      result: executed.value,
      ...(chargedCredits === undefined
        ? {}
        : { cost: { credits: chargedCredits, currency: 'credits' as const } }),
    },
  };
}

/**
 * What a thrown handler error answers: a CapabilityError its own code and message, a GuardDenied (a
 * refused egress URL from the handler's fetch: 403 `egress_denied` naming the host) what the chain's own
 * denial would (src/invoke/refusal.ts), anything else 500.
 */
function handlerRefusal(thrown: unknown): GatewayError {
  if (thrown instanceof CapabilityError) return denialError(capabilityDenial(thrown), thrown);
  if (thrown instanceof GuardDenied) return denialError(thrown.toDecision(), thrown);
  // The database went away under the handler: retryable, like the same failure anywhere else.
  if (isDependencyFailure(thrown)) return dependencyUnavailable(thrown);
  return new GatewayError('internal_error', {
    message: 'The capability failed; nothing was changed.',
    cause: thrown,
  });
}
