import type { FaultCode } from './errors.js';
import type { ChallengeDecision, DenyDecision, GuardContext, GuardName, TraceEntry } from './guard.js';

interface CheckedBase {
  /** The context after the last guard that ran: request, merged facts, mode. */
  readonly context: GuardContext;
  /** Every check decision so far, in order, denials and faults included. */
  readonly trace: readonly TraceEntry[];
}

/**
 * Where the check phase stopped: it passed every guard it ran (up to `lastIndex` of `guardOrder`), or
 * one guard stopped it. Internal to the chain: callers only ever see settled outcomes and admitted runs.
 * @internal
 */
export type CheckedRun =
  | (CheckedBase & { readonly outcome: 'pass'; readonly lastIndex: number })
  | StoppedRun;

/** A check phase that one guard stopped. @internal */
export type StoppedRun =
  | (CheckedBase & { readonly outcome: 'deny'; readonly guard: GuardName; readonly decision: DenyDecision })
  | (CheckedBase & {
      readonly outcome: 'challenge';
      readonly guard: GuardName;
      readonly decision: ChallengeDecision;
    })
  | (CheckedBase & {
      readonly outcome: 'fault';
      readonly guard: GuardName;
      readonly code: FaultCode;
      readonly error: Error;
    });

/** A check phase that passed. @internal */
export type PassedRun = Extract<CheckedRun, { outcome: 'pass' }>;
