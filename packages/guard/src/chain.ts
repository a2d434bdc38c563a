import { performance } from 'node:perf_hooks';
import type { ErrorCode } from '@agw/contracts';
import type { CheckedRun, PassedRun, StoppedRun } from './checked.js';
import { type FaultCode, GuardConfigError, GuardDenied, GuardFault, toError } from './errors.js';
import {
  type Guard,
  type GuardContext,
  type GuardDecision,
  type GuardFacts,
  type GuardName,
  guardOrder,
  isGuardName,
  type Principal,
  type TraceEntry,
} from './guard.js';
import type {
  Deferral,
  DeferredRun,
  Executed,
  ExecuteOptions,
  ExecutionContext,
  GuardChain,
  HandlerFailure,
  Refusal,
  SettleOptions,
} from './outcomes.js';
import { type RunResult, type Settlement, settleRun } from './settle.js';

/** Guards that may run in shadow mode: the ones whose rules roll out gradually. */
export const shadowableGuards = ['policy', 'billing', 'egress'] as const satisfies readonly GuardName[];

/** Options of {@link createGuardChain}. */
export interface GuardChainOptions {
  /** Guards whose non-pass decisions are recorded but not enforced (only `policy`, `billing`, `egress`). */
  readonly shadow?: readonly GuardName[];
  /**
   * Wraps every guard's check, e.g. to run it inside a tracing span (the gateway's OpenTelemetry spans):
   * called with the guard's name and context, it must call `check` once and return what it returns
   * (synchronously when `check` does). Must not throw. Without it a check runs unwrapped.
   */
  readonly observeGuard?: GuardObserver;
}

/** What a {@link GuardObserver} sees of a guard's decision: the outcome and, for a non-pass, its code. */
export interface ObservedDecision {
  readonly outcome: 'pass' | 'deny' | 'challenge' | 'fault';
  readonly code?: string;
}

/** See {@link GuardChainOptions.observeGuard}. */
export type GuardObserver = <D extends ObservedDecision>(
  guard: GuardName,
  context: GuardContext,
  check: () => D | Promise<D>,
) => D | Promise<D>;

/**
 * Builds a guard chain. Validates at build time that every guard is a guard, that names are known and
 * unique, and that they come in the canonical order of {@link guardOrder} (a subset is allowed). Its
 * runs' `principal` is whatever `installation_key` resolved, if that guard is in the chain.
 * @example
 * const chain = createGuardChain([installationKeyGuard({ keys, clock }), scopesGuard()]);
 * const admission = await chain.admit({ authorization, capability, params });
 */
export function createGuardChain(
  guards: readonly Guard[],
  options: GuardChainOptions = {},
): GuardChain<Principal | undefined> {
  return buildChain(guards, options, (facts) => facts.principal);
}

const policyIndex = guardOrder.indexOf('policy');
const billingIndex = guardOrder.indexOf('billing');
const lastIndex = guardOrder.length - 1;

/**
 * The chain behind {@link createGuardChain} and `createStandardChain`: `principalOf` types the
 * principal of a passed run (the standard chain always has `installation_key`, so always a principal).
 * @internal
 */
export function buildChain<P>(
  guards: readonly Guard[],
  options: GuardChainOptions,
  principalOf: (facts: GuardFacts) => P,
): GuardChain<P> {
  const ordered = validateGuards(guards);
  const shadow = validateShadow(options.shadow ?? [], ordered);
  const { observeGuard } = options;

  // Each guard's place in guardOrder, looked up once rather than on every run.
  const orderIndex = ordered.map((guard) => guardOrder.indexOf(guard.name));

  /** Runs the checks of the guards from `startIndex` to `endIndex` of `guardOrder`; stops at a non-pass. */
  async function check(
    context: GuardContext,
    startIndex: number,
    endIndex: number,
    traceSoFar: readonly TraceEntry[],
  ): Promise<CheckedRun> {
    const trace = [...traceSoFar];
    let current = context;
    for (let position = 0; position < ordered.length; position += 1) {
      const index = orderIndex[position] as number;
      if (index < startIndex || index > endIndex) continue;
      const guard = ordered[position] as Guard;
      const started = performance.now();
      const guardContext = { ...current, trace: [...trace] };
      const pending =
        observeGuard === undefined
          ? decide(guard, guardContext)
          : observeGuard(guard.name, guardContext, () => decide(guard, guardContext));
      // A guard that decides synchronously costs no promise and no microtask turn.
      const decision = pending instanceof Promise ? await pending : pending;
      const duration_ms = Math.round((performance.now() - started) * 1000) / 1000;
      trace.push(traceEntry(guard.name, decision, duration_ms, shadow.has(guard.name)));
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
    return { outcome: 'pass', context: { ...current, trace: [...trace] }, trace, lastIndex: endIndex };
  }

  const settle = (run: CheckedRun, result?: RunResult, returnWrites = false) =>
    settleRun({ run, execution: result, guards: ordered, returnWrites });

  async function refuse(run: StoppedRun, returnWrites = false): Promise<Refusal> {
    const settlement = await settle(run, undefined, returnWrites);
    const base = { guard: run.guard, facts: run.context.facts, trace: run.trace, settlement };
    if (run.outcome === 'fault') return { ...base, outcome: 'fault', code: run.code, error: run.error };
    return run.outcome === 'deny'
      ? { ...base, outcome: 'deny', decision: run.decision }
      : { ...base, outcome: 'challenge', decision: run.decision };
  }

  /** The one way to continue a passed run. One flag makes it settle once, whichever method is called. */
  function executable(passed: PassedRun) {
    let settling = false;
    const claim = () => {
      if (settling) throw new GuardConfigError('This run was already executed, deferred or failed.');
      settling = true;
    };
    const principal = principalOf(passed.context.facts);

    async function execute<T, F extends { readonly code: ErrorCode } = HandlerFailure>(
      fn: (context: ExecutionContext<P>) => T | Promise<T>,
      executeOptions?: ExecuteOptions<F>,
    ): Promise<Executed<T, F>> {
      claim();
      const returnWrites = executeOptions?.returnWrites === true;
      const context = withUnit(passed.context, executeOptions?.unit);
      const run = await check(context, passed.lastIndex + 1, lastIndex, passed.trace);
      if (run.outcome !== 'pass') return refuse(run, returnWrites);
      let actualCostCredits: string | undefined;
      let value: T;
      try {
        value = await fn({
          principal,
          facts: run.context.facts,
          egressHosts: run.context.facts.egressHosts ?? [],
          reportCost: (credits) => {
            actualCostCredits = credits;
          },
        });
      } catch (thrown) {
        // Without `classify`, F is its default, HandlerFailure: what defaultFailure returns.
        const classify = executeOptions?.classify ?? (defaultFailure as unknown as (thrown: unknown) => F);
        const failure = classify(thrown);
        const settlement = await settle(run, { status: 'failed', code: failure.code }, returnWrites);
        return { outcome: 'failed', failure, settlement };
      }
      const settlement = await settle(
        run,
        { status: 'succeeded', ...(actualCostCredits === undefined ? {} : { actualCostCredits }) },
        returnWrites,
      );
      return { outcome: 'succeeded', value, settlement };
    }

    async function defer(deferOptions?: SettleOptions): Promise<Deferral> {
      claim();
      const context = withUnit(passed.context, deferOptions?.unit);
      const run = await check(context, passed.lastIndex + 1, billingIndex, passed.trace);
      if (run.outcome !== 'pass') return refuse(run);
      const settlement = await settle(run, { status: 'accepted' });
      return { outcome: 'accepted', run: atRest(run), settlement };
    }

    async function fail(code: ErrorCode, failOptions?: SettleOptions): Promise<Settlement> {
      claim();
      return settle(
        { ...passed, context: withUnit(passed.context, failOptions?.unit) },
        { status: 'failed', code },
      );
    }

    return { principal, facts: passed.context.facts, trace: passed.trace, execute, fail, defer };
  }

  return {
    names: ordered.map((guard) => guard.name),
    async admit(request, admitOptions = {}) {
      const { beforeChallenge } = admitOptions;
      const context = withUnit(
        {
          request,
          facts: admitOptions.facts ?? {},
          mode: 'invoke',
          trace: [],
          ...(beforeChallenge === undefined ? {} : { beforeChallenge }),
        },
        admitOptions.unit,
      );
      const run = await check(context, 0, policyIndex, []);
      if (run.outcome !== 'pass') return refuse(run);
      return { outcome: 'admitted', ...executable(run) };
    },
    async dryRun(request, admitOptions = {}) {
      const context = withUnit(
        { request, facts: admitOptions.facts ?? {}, mode: 'dry_run', trace: [] },
        admitOptions.unit,
      );
      const run = await check(context, 0, policyIndex, []);
      if (run.outcome !== 'pass') return refuse(run);
      const settlement = await settle(run);
      return { outcome: 'simulated', facts: run.context.facts, trace: run.trace, settlement };
    },
    restore(deferred) {
      if (!isGuardName(deferred?.after))
        throw new GuardConfigError('A deferred run names the last guard run.');
      const trace = [...deferred.trace];
      const context: GuardContext = {
        request: deferred.request,
        facts: deferred.facts,
        mode: 'invoke',
        trace,
      };
      const { defer: _once, ...run } = executable({
        outcome: 'pass',
        context,
        trace,
        lastIndex: guardOrder.indexOf(deferred.after),
      });
      return run;
    },
  };
}

/**
 * `context` with the caller's unit of work of this phase (a run admitted in one unit may execute in
 * another: the mutating invoke admits on the pool, then executes in its own transaction).
 */
function withUnit(context: GuardContext, unit: unknown): GuardContext {
  if (unit === undefined) {
    if (context.unit === undefined) return context;
    const { unit: _earlier, ...rest } = context;
    return rest;
  }
  return { ...context, unit };
}

/**
 * A passed run at rest. The audit guard's deferred-decision flag is left out: the `accepted` record
 * written before storing the run took the decision's id, and the run's final settle writes its own
 * record pointing at it (`decision_audit_id`).
 */
function atRest(run: PassedRun): DeferredRun {
  const { authorization: _key, approvalToken: _token, ...request } = run.context.request;
  const { deferredDecision: _written, ...facts } = run.context.facts;
  return { request, facts, trace: run.trace, after: guardOrder[run.lastIndex] as GuardName };
}

/** What a thrown handler error is recorded as when the caller does not classify it. */
function defaultFailure(thrown: unknown): HandlerFailure {
  const code = thrown instanceof GuardDenied || thrown instanceof GuardFault ? thrown.code : 'internal_error';
  return { code, error: thrown };
}

type Decided = GuardDecision | { readonly outcome: 'fault'; readonly code: FaultCode; readonly error: Error };

/** A check's trace entry: `code` for a non-pass that has one, `shadow` for an unenforced non-pass. */
function traceEntry(guard: GuardName, decision: Decided, duration_ms: number, shadowed: boolean): TraceEntry {
  const entry: { -readonly [K in keyof TraceEntry]: TraceEntry[K] } = {
    guard,
    phase: 'check',
    outcome: decision.outcome,
    duration_ms,
  };
  if ('code' in decision) entry.code = decision.code;
  if (shadowed && decision.outcome !== 'pass') entry.shadow = true;
  return entry;
}

/**
 * Runs one guard; a thrown GuardDenied is a denial, anything else thrown is a fault (fail closed).
 * Answers synchronously when the guard does, a promise otherwise.
 */
function decide(guard: Guard, context: GuardContext): Decided | Promise<Decided> {
  let checked: GuardDecision | Promise<GuardDecision>;
  try {
    checked = guard.check(context);
  } catch (thrown) {
    return thrownDecision(thrown);
  }
  if (isThenable(checked)) {
    return Promise.resolve(checked).then((decision) => validDecision(guard, decision), thrownDecision);
  }
  return validDecision(guard, checked);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function validDecision(guard: Guard, decision: unknown): Decided {
  if (isDecision(decision)) return decision;
  const error = new GuardFault(`Guard ${guard.name} returned no valid decision.`, { guard: guard.name });
  return { outcome: 'fault', code: 'internal_error', error };
}

function thrownDecision(thrown: unknown): Decided {
  if (thrown instanceof GuardDenied) return thrown.toDecision();
  const error = toError(thrown);
  const code: FaultCode = thrown instanceof GuardFault ? thrown.code : 'internal_error';
  return { outcome: 'fault', code, error };
}

function isDecision(value: unknown): value is GuardDecision {
  if (typeof value !== 'object' || value === null) return false;
  const outcome = (value as { outcome?: unknown }).outcome;
  return outcome === 'pass' || outcome === 'deny' || outcome === 'challenge';
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
