import type { ErrorCode } from '@agw/contracts';
import type { FaultCode } from './errors.js';
import type {
  BeforeChallenge,
  ChallengeDecision,
  DenyDecision,
  GuardFacts,
  GuardName,
  GuardRequest,
  Principal,
  TraceEntry,
} from './guard.js';
import type { Settlement } from './settle.js';

/** Options of {@link GuardChain.admit} and {@link GuardChain.dryRun}. */
export interface AdmitOptions {
  /** Facts known before the chain starts (e.g. a principal resolved elsewhere). */
  readonly facts?: GuardFacts;
  /** The caller's unit of work: handed to every port call of guards 1–6 and of a refusal's settle. */
  readonly unit?: unknown;
  /** Asked by `policy` before it creates an approval challenge (see {@link BeforeChallenge}); admit only. */
  readonly beforeChallenge?: BeforeChallenge;
}

/** Options of {@link AdmittedRun.defer} and {@link ExecutableRun.fail}. */
export interface SettleOptions {
  /** The caller's unit of work: handed to every port call of the checks left and of the settle. */
  readonly unit?: unknown;
}

interface RefusalBase {
  /** The guard that stopped the run. */
  readonly guard: GuardName;
  /** The facts the guards before it added (e.g. `rateLimit` for RateLimit headers). */
  readonly facts: GuardFacts;
  /** The check decisions, the deciding one last. */
  readonly trace: readonly TraceEntry[];
  /** The run is already settled: its audit record is `settlement.auditId`. Nothing was charged. */
  readonly settlement: Settlement;
}

/**
 * A run one guard stopped, already settled (audited): a denial, an approval challenge, or a fault (a
 * guard that threw or a port that failed; the chain fails closed). It has nothing left to run.
 */
export type Refusal =
  | (RefusalBase & { readonly outcome: 'deny'; readonly decision: DenyDecision })
  | (RefusalBase & { readonly outcome: 'challenge'; readonly decision: ChallengeDecision })
  | (RefusalBase & { readonly outcome: 'fault'; readonly code: FaultCode; readonly error: Error });

/** What the function given to {@link AdmittedRun.execute} is called with. */
export interface ExecutionContext<P> {
  /** The key holder (typed `Principal` on {@link createStandardChain}'s runs). */
  readonly principal: P;
  /** Every fact the nine checks added. */
  readonly facts: GuardFacts;
  /** The hosts the egress guard allowed; hand them to `createEgressFetch`. */
  readonly egressHosts: readonly string[];
  /** The run's actual cost in credits, when lower than the capability's estimate (the default charge). */
  reportCost(credits: string): void;
}

/** How a thrown handler error is recorded: its error code, and whatever the caller wants back. */
export interface HandlerFailure {
  readonly code: ErrorCode;
  readonly error: unknown;
}

/** Options of {@link AdmittedRun.execute}. */
export interface ExecuteOptions<F extends { readonly code: ErrorCode }> {
  /**
   * Turns what the handler threw into the failure the run is settled (audited) with and returned as.
   * Default: a `GuardDenied` or `GuardFault` keeps its code, anything else is `internal_error`.
   */
  readonly classify?: (thrown: unknown) => F;
  /**
   * Settle without writing: billing's charge and audit's records come back in `settlement.writes`
   * (refusals of `audit`, `billing` and `egress` included) for the caller to write together with its
   * own result, in one statement of its transaction. `settlement.chargedCredits` and the outcome record
   * assume the charge is written: a caller that cannot write it must not commit the run. Guards
   * without these writes are unaffected. Default false: the hooks write through their ports.
   */
  readonly returnWrites?: boolean;
  /**
   * The caller's unit of work (e.g. the transaction the result commits in): handed to every port call
   * of `audit`, `billing` and `egress` and of the settle (see src/ports.ts), not the one `admit` had.
   */
  readonly unit?: unknown;
}

/** The outcome of {@link AdmittedRun.execute}: settled exactly once, whichever it is. */
export type Executed<T, F = HandlerFailure> =
  /** The handler returned `value`; billing charged (once) and audit recorded the success. */
  | { readonly outcome: 'succeeded'; readonly value: T; readonly settlement: Settlement }
  /** The handler threw; audited as `failed` with `failure.code`, nothing charged. */
  | { readonly outcome: 'failed'; readonly failure: F; readonly settlement: Settlement }
  /** `audit`, `billing` or `egress` stopped the run before the handler. */
  | Refusal;

/**
 * A passed run at rest, JSON-safe: what {@link AdmittedRun.defer} hands over for a long-running job and
 * {@link GuardChain.restore} takes back, possibly in another process. Holds no credentials: the key and
 * the approval token are dropped (the guards that needed them already ran).
 */
export interface DeferredRun {
  readonly request: Omit<GuardRequest, 'authorization' | 'approvalToken'>;
  readonly facts: GuardFacts;
  readonly trace: readonly TraceEntry[];
  /** The last guard that ran. */
  readonly after: GuardName;
}

/** The outcome of {@link AdmittedRun.defer}. */
export type Deferral =
  /** Audited as `accepted` (nothing charged); store `run` with the job and restore it to execute. */
  | { readonly outcome: 'accepted'; readonly run: DeferredRun; readonly settlement: Settlement }
  /** `audit` or `billing` stopped the run: settled like any refusal. */
  | Refusal;

/** A run that may still execute: one of its methods settles it, and only one, once. */
export interface ExecutableRun<P> {
  readonly principal: P;
  readonly facts: GuardFacts;
  readonly trace: readonly TraceEntry[];
  /**
   * Runs the remaining guards (`audit`, `billing`, `egress`), then `fn`, then settles: billing charges
   * once if `fn` returned, audit records the outcome. A settle hook that fails rejects with
   * `SettleFault` (after the other hooks ran), so the caller does not commit an unrecorded result.
   * A second call (of this or of `defer`/`fail`) throws `GuardConfigError`.
   */
  execute<T, F extends { readonly code: ErrorCode } = HandlerFailure>(
    fn: (context: ExecutionContext<P>) => T | Promise<T>,
    options?: ExecuteOptions<F>,
  ): Promise<Executed<T, F>>;
  /** Settles the run as `failed` with `code` without running anything more (the handler cannot run). */
  fail(code: ErrorCode, options?: SettleOptions): Promise<Settlement>;
}

/** A run that passed guards 1–6 (through `policy`). */
export interface AdmittedRun<P> extends ExecutableRun<P> {
  readonly outcome: 'admitted';
  /**
   * For a long-running capability: runs `audit` and `billing`'s check now (so a refusal is answered at
   * once), settles the run as `accepted`, and returns it at rest. `egress`, the handler and the final
   * settle run later through {@link GuardChain.restore}.
   */
  defer(options?: SettleOptions): Promise<Deferral>;
}

/** The outcome of {@link GuardChain.admit}: an admitted run, or a settled refusal or challenge. */
export type Admission<P> = AdmittedRun<P> | Refusal;

/** The outcome of {@link GuardChain.dryRun}, settled (audited as `capability.dry_run`). */
export type DryRun =
  | {
      readonly outcome: 'simulated';
      readonly facts: GuardFacts;
      readonly trace: readonly TraceEntry[];
      readonly settlement: Settlement;
    }
  | Refusal;

/** A built chain. */
export interface GuardChain<P = Principal | undefined> {
  /** The guards in the order they run. */
  readonly names: readonly GuardName[];
  /**
   * Runs guards 1–6 (`installation_key` through `policy`). A denial, challenge or fault is settled here
   * and returned as a {@link Refusal}; a pass is an {@link AdmittedRun} to execute or defer. Never
   * rejects for a guard's fault; rejects only if settling the refusal fails (`SettleFault`).
   */
  admit(request: GuardRequest, options?: AdmitOptions): Promise<Admission<P>>;
  /**
   * Runs guards 1–6 in `dry_run` mode (policy creates no approval and consumes no rate limit) and
   * settles: a pass is audited as `simulated`, a refusal like any refusal.
   */
  dryRun(request: GuardRequest, options?: AdmitOptions): Promise<DryRun>;
  /**
   * A deferred run back from storage, to execute (or fail) once. The chain trusts it: pass only what
   * `defer` returned and your own storage kept.
   */
  restore(run: DeferredRun): ExecutableRun<P>;
}
