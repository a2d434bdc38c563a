import { performance } from 'node:perf_hooks';
import type { ErrorCode } from '@agw/contracts';
import { type FaultCode, GuardConfigError, GuardDenied, GuardFault, toError } from './errors.js';
import {
  type ChallengeDecision,
  type DenyDecision,
  type Guard,
  type GuardContext,
  type GuardDecision,
  type GuardFacts,
  type GuardMode,
  type GuardName,
  type GuardRequest,
  guardOrder,
  isGuardName,
  type TraceEntry,
} from './guard.js';
import { type Execution, type Settlement, settleRun } from './settle.js';

/** Guards that may run in shadow mode: the ones whose rules roll out gradually. */
export const shadowableGuards = ['policy', 'billing', 'egress'] as const satisfies readonly GuardName[];

/** Options of {@link createGuardChain}. */
export interface GuardChainOptions {
  /** Guards whose non-pass decisions are recorded but not enforced (only `policy`, `billing`, `egress`). */
  readonly shadow?: readonly GuardName[];
}

/** Options of one run. */
export interface RunOptions {
  /** `dry_run` runs up to and including `policy` and tells guards to change no state. Default `invoke`. */
  readonly mode?: GuardMode;
  /** The last guard to run (inclusive); the run stops after it. */
  readonly until?: GuardName;
  /** Facts known before the chain starts (e.g. a principal resolved elsewhere). */
  readonly facts?: GuardFacts;
}

interface RunBase {
  /** The context after the last guard that ran: request, merged facts, mode. */
  readonly context: GuardContext;
  /** Every decision so far, in order, denials and faults included. */
  readonly trace: readonly TraceEntry[];
}

/** The result of a run: it passed every guard it ran, or one guard stopped it. */
export type ChainRun =
  | (RunBase & { readonly outcome: 'pass' })
  | (RunBase & { readonly outcome: 'deny'; readonly guard: GuardName; readonly decision: DenyDecision })
  | (RunBase & {
      readonly outcome: 'challenge';
      readonly guard: GuardName;
      readonly decision: ChallengeDecision;
    })
  | (RunBase & {
      readonly outcome: 'fault';
      readonly guard: GuardName;
      readonly code: FaultCode;
      readonly error: Error;
    });

/** A built chain. */
export interface GuardChain {
  /** The guards in the order they run. */
  readonly names: readonly GuardName[];
  /** Runs the check phase; stops at the first non-pass decision. Never rejects for a guard's fault. */
  run(request: GuardRequest, options?: RunOptions): Promise<ChainRun>;
  /** Continues a passed run with the guards after where it stopped (e.g. after an idempotency claim). */
  resume(previous: ChainRun, options?: { readonly until?: GuardName }): Promise<ChainRun>;
  /**
   * The settle phase, once per run: every guard's `settle` hook in reverse order (audit sees billing's
   * charge). Pass the handler's `execution` for a passed invoke. Throws a {@link SettleFault} if a hook
   * failed, after running the others, so a caller cannot commit a result that was not recorded.
   */
  settle(run: ChainRun, execution?: Execution): Promise<Settlement>;
  /**
   * The JSON-safe state of a passed invoke run, to continue it later (a long-running job, possibly in
   * another process after a restart). Holds no credentials: `authorization` and `approvalToken` are
   * dropped (the guards that needed them already ran).
   */
  snapshot(run: ChainRun): RunSnapshot;
  /**
   * A passed run rebuilt from {@link GuardChain.snapshot}: `resume` continues after `snapshot.after`,
   * and it settles once like any run. The chain trusts the snapshot, so pass only what `snapshot`
   * returned and your own storage kept.
   */
  restore(snapshot: RunSnapshot): ChainRun;
}

/** A passed invoke run at rest: see {@link GuardChain.snapshot}. */
export interface RunSnapshot {
  readonly request: GuardRequest;
  readonly facts: GuardFacts;
  readonly trace: readonly TraceEntry[];
  /** The last guard that ran. */
  readonly after: GuardName;
}

/** Where each run stopped, so `resume` continues from there and rejects foreign runs. */
interface RunPosition {
  readonly lastIndex: number;
}

/**
 * Builds a guard chain. Validates at build time that every guard is a guard, that names are known and
 * unique, and that they come in the canonical order of {@link guardOrder} (a subset is allowed).
 * @example
 * const chain = createGuardChain([installationKeyGuard({ keys }), scopesGuard()]);
 * const run = await chain.run({ authorization, capability, params });
 */
export function createGuardChain(guards: readonly Guard[], options: GuardChainOptions = {}): GuardChain {
  const ordered = validateGuards(guards);
  const shadow = validateShadow(options.shadow ?? [], ordered);
  const positions = new WeakMap<ChainRun, RunPosition>();
  const settled = new WeakSet<ChainRun>();
  // A resumed run lives on in the run resume returned; it must not be resumed or settled again.
  const resumed = new WeakSet<ChainRun>();

  async function execute(
    context: GuardContext,
    startIndex: number,
    until: GuardName | undefined,
    traceSoFar: readonly TraceEntry[],
  ): Promise<ChainRun> {
    const endIndex = lastIndexFor(context.mode, until);
    const trace = [...traceSoFar];
    let current = context;
    for (const guard of ordered) {
      const index = guardOrder.indexOf(guard.name);
      if (index < startIndex || index > endIndex) continue;
      const started = performance.now();
      const decision = await decide(guard, { ...current, trace: [...trace] });
      const duration_ms = Math.round((performance.now() - started) * 1000) / 1000;
      const entry: TraceEntry = {
        guard: guard.name,
        phase: 'check',
        outcome: decision.outcome,
        duration_ms,
        ...('code' in decision ? { code: decision.code } : {}),
        ...(shadow.has(guard.name) && decision.outcome !== 'pass' ? { shadow: true as const } : {}),
      };
      trace.push(entry);
      if (decision.outcome === 'pass') {
        if (decision.facts) current = { ...current, facts: { ...current.facts, ...decision.facts } };
        continue;
      }
      if (shadow.has(guard.name)) continue;
      const base = { context: { ...current, trace: [...trace] }, trace, guard: guard.name };
      if (decision.outcome === 'fault') {
        return { ...base, outcome: 'fault', code: decision.code, error: decision.error };
      }
      return decision.outcome === 'deny'
        ? { ...base, outcome: 'deny', decision }
        : { ...base, outcome: 'challenge', decision };
    }
    const run: ChainRun = { outcome: 'pass', context: { ...current, trace: [...trace] }, trace };
    positions.set(run, { lastIndex: endIndex });
    return run;
  }

  return {
    names: ordered.map((guard) => guard.name),
    run(request, runOptions = {}) {
      const mode = runOptions.mode ?? 'invoke';
      const context: GuardContext = { request, facts: runOptions.facts ?? {}, mode, trace: [] };
      return execute(context, 0, runOptions.until, []);
    },
    async resume(previous, resumeOptions = {}) {
      const position = positions.get(previous);
      if (previous.outcome !== 'pass' || position === undefined || resumed.has(previous)) {
        throw new GuardConfigError('Only a passed run of this chain can be resumed, and only once.');
      }
      resumed.add(previous);
      return execute(previous.context, position.lastIndex + 1, resumeOptions.until, previous.trace);
    },
    async settle(run, execution) {
      if (settled.has(run)) throw new GuardConfigError('This run was already settled.');
      if (resumed.has(run))
        throw new GuardConfigError('This run was resumed: settle the run resume returned.');
      if (run.outcome === 'pass' && run.context.mode === 'invoke' && execution === undefined) {
        throw new GuardConfigError('Settling a passed invoke needs the execution result of the handler.');
      }
      settled.add(run);
      return settleRun({ run, execution, guards: ordered });
    },
    snapshot(run) {
      const position = positions.get(run);
      if (run.outcome !== 'pass' || run.context.mode !== 'invoke' || position === undefined) {
        throw new GuardConfigError('Only a passed invoke run of this chain has a snapshot.');
      }
      const { authorization: _key, approvalToken: _token, ...request } = run.context.request;
      const after = guardOrder[position.lastIndex] as GuardName;
      return { request, facts: run.context.facts, trace: run.trace, after };
    },
    restore(snapshot) {
      if (!isGuardName(snapshot?.after)) throw new GuardConfigError('A snapshot names the last guard run.');
      const trace = [...snapshot.trace];
      const context: GuardContext = {
        request: snapshot.request,
        facts: snapshot.facts,
        mode: 'invoke',
        trace,
      };
      const run: ChainRun = { outcome: 'pass', context, trace };
      positions.set(run, { lastIndex: guardOrder.indexOf(snapshot.after) });
      return run;
    },
  };
}

type Decided = GuardDecision | { readonly outcome: 'fault'; readonly code: FaultCode; readonly error: Error };

/** Runs one guard; a thrown GuardDenied is a denial, anything else thrown is a fault (fail closed). */
async function decide(guard: Guard, context: GuardContext): Promise<Decided> {
  try {
    const decision = await guard.check(context);
    if (!isDecision(decision)) {
      const error = new GuardFault(`Guard ${guard.name} returned no valid decision.`, { guard: guard.name });
      return { outcome: 'fault', code: 'internal_error', error };
    }
    return decision;
  } catch (thrown) {
    if (thrown instanceof GuardDenied) return thrown.toDecision();
    const error = toError(thrown);
    const code: FaultCode = thrown instanceof GuardFault ? thrown.code : 'internal_error';
    return { outcome: 'fault', code, error };
  }
}

function isDecision(value: unknown): value is GuardDecision {
  if (typeof value !== 'object' || value === null) return false;
  const outcome = (value as { outcome?: unknown }).outcome;
  return outcome === 'pass' || outcome === 'deny' || outcome === 'challenge';
}

function lastIndexFor(mode: GuardMode, until: GuardName | undefined): number {
  const policyIndex = guardOrder.indexOf('policy');
  if (until !== undefined && !isGuardName(until)) throw new GuardConfigError(`Unknown guard name: ${until}`);
  const untilIndex = until === undefined ? guardOrder.length - 1 : guardOrder.indexOf(until);
  if (mode === 'dry_run') {
    if (untilIndex > policyIndex && until !== undefined) {
      throw new GuardConfigError('A dry run stops at policy; it cannot run audit, billing or egress.');
    }
    return Math.min(untilIndex, policyIndex);
  }
  return untilIndex;
}

function validateGuards(guards: readonly Guard[]): readonly Guard[] {
  if (!Array.isArray(guards)) throw new GuardConfigError('Guards must be an array.');
  let previousIndex = -1;
  const seen = new Set<string>();
  for (const guard of guards) {
    if (typeof guard !== 'object' || guard === null || typeof guard.check !== 'function') {
      throw new GuardConfigError('Every guard must be an object with a check(context) function.');
    }
    if (!isGuardName(guard.name)) throw new GuardConfigError(`Unknown guard name: ${String(guard.name)}`);
    if (seen.has(guard.name)) throw new GuardConfigError(`Guard ${guard.name} appears twice.`);
    seen.add(guard.name);
    const index = guardOrder.indexOf(guard.name);
    if (index < previousIndex) {
      throw new GuardConfigError(
        `Guard ${guard.name} is out of order; the order is ${guardOrder.join(', ')}.`,
      );
    }
    previousIndex = index;
  }
  return [...guards];
}

function validateShadow(shadow: readonly GuardName[], guards: readonly Guard[]): ReadonlySet<GuardName> {
  for (const name of shadow) {
    if (!(shadowableGuards as readonly string[]).includes(name)) {
      throw new GuardConfigError(
        `Guard ${name} cannot run in shadow mode; only ${shadowableGuards.join(', ')}.`,
      );
    }
    if (!guards.some((guard) => guard.name === name)) {
      throw new GuardConfigError(`Shadow guard ${name} is not in the chain.`);
    }
  }
  return new Set(shadow);
}

/** The error code a run ended with, if it did not pass. */
export function runErrorCode(run: ChainRun): ErrorCode | undefined {
  if (run.outcome === 'deny') return run.decision.code;
  if (run.outcome === 'fault') return run.code;
  return undefined;
}
