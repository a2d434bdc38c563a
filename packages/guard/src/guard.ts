import type { ErrorCode } from '@agw/contracts';
import type { AuditRecord, ChargeRequest, WalletSnapshot } from './ports.js';

/**
 * The nine built-in guards in their canonical order. Order is data: reordering security checks is a
 * breaking change, so the chain refuses any other order and a test pins this list.
 */
export const guardOrder = [
  'installation_key',
  'required_otps',
  'operator_approval',
  'scopes',
  'schema',
  'policy',
  'audit',
  'billing',
  'egress',
] as const;

/** The name of one of the nine guards. */
export type GuardName = (typeof guardOrder)[number];

/** True when `name` is one of the nine guard names. */
export function isGuardName(name: unknown): name is GuardName {
  return typeof name === 'string' && (guardOrder as readonly string[]).includes(name);
}

/** Risk levels of a capability, lowest first. */
export type RiskLevel = 'low' | 'medium' | 'high' | 'critical';

/**
 * A JSON Schema (2020-12): an object or a boolean. Typed loosely on purpose so TypeBox schemas (the
 * contracts' `TSchema`) fit without a cast.
 */
export type JsonSchema = boolean | object;

/**
 * What the guards need to know about a capability. Structurally a subset of the contracts'
 * `CapabilityContract`, plus two optional fields the contract may omit: `egress` and `approval`.
 */
export interface GuardCapability {
  readonly id: string;
  readonly version: string;
  readonly risk_level: RiskLevel;
  readonly scopes: readonly string[];
  /** Maximum cost of one run in credits, an exact decimal string such as `"0.25"`. */
  readonly cost_credits: string;
  readonly mutating: boolean;
  readonly input_schema: JsonSchema;
  /** Hosts the handler may reach over the network; absent or empty means none. */
  readonly egress?: readonly string[];
  /** `always`: every run needs an operator approval; `by_risk` (default): only `high`/`critical`. */
  readonly approval?: 'always' | 'by_risk';
}

/** Whether the chain guards a real run or a simulation (`dry_run` stops after `policy`). */
export type GuardMode = 'invoke' | 'dry_run';

/** The caller's request as the guards see it. Never mutated. */
export interface GuardRequest {
  /** The raw `Authorization` header value, e.g. `Bearer agw_ak_<prefix>.<secret>`. */
  readonly authorization?: string | undefined;
  readonly capability: GuardCapability;
  /** The `params` object of the request body. */
  readonly params: unknown;
  readonly approvalToken?: string | undefined;
  readonly idempotencyKey?: string | undefined;
  readonly requestId?: string | undefined;
  readonly sourceIp?: string | undefined;
  readonly userAgent?: string | undefined;
  /** How the call arrived (e.g. `http`, `mcp`), copied to its audit records. */
  readonly transport?: string | undefined;
}

/** The key holder, resolved by `installation_key`. */
export interface Principal {
  readonly key_id: string;
  readonly key_prefix: string;
  readonly kind: 'bootstrap' | 'installation';
  readonly installation_id: string;
  readonly organization_id: string;
  readonly scopes: readonly string[];
}

/** Onboarding state of an installation and its organization, read once by `required_otps`. */
export interface InstallationState {
  readonly installation_id: string;
  readonly organization_id: string;
  readonly owner_verified_at: string | null;
  readonly agent_email: string | null;
  readonly agent_email_verified_at: string | null;
  readonly operator_approval_status: 'pending' | 'approved' | 'blocked';
  readonly organization_is_active: boolean;
}

/** The most restrictive rate-limit bucket of this request, for `RateLimit` response headers. */
export interface RateLimitFact {
  readonly policy: string;
  readonly limit: number;
  readonly remaining: number;
  readonly reset_seconds: number;
  readonly window_seconds: number;
}

/** What guards learned so far. Each guard adds facts by returning them with `pass`. */
export interface GuardFacts {
  readonly principal?: Principal;
  readonly installation?: InstallationState;
  /** sha-256 hex of the canonical JSON of `params`. */
  readonly paramsHash?: string;
  /** Set by `policy`: the run needs an operator approval (and why). */
  readonly approvalRequired?: boolean;
  readonly approvalReason?: string;
  /** Set by `policy` when a valid approval token was consumed. */
  readonly approvalId?: string;
  readonly rateLimit?: RateLimitFact;
  /**
   * Set by `audit`: the record of the allowed decision, written before the handler runs — or, with
   * `deferDecision`, the id the run's first settled record takes, which carries the decision in its trace.
   */
  readonly decisionAuditId?: string;
  /** Set by `audit` with `deferDecision`: no decision record was written; the first settle's record is it. */
  readonly deferredDecision?: true;
  /** Set by `policy` when it read the wallet for the kill switch; `billing` reuses it (one read). */
  readonly wallet?: WalletSnapshot;
  /** Set by `billing`: the estimated (maximum) cost in credits. */
  readonly estimatedCostCredits?: string;
  /** Set by `egress`: the hosts this run may reach. */
  readonly egressHosts?: readonly string[];
}

/** What a guard sees: the request, the facts of earlier guards, and the mode. */
export interface GuardContext {
  readonly request: GuardRequest;
  readonly facts: GuardFacts;
  readonly mode: GuardMode;
  /** The decisions of the guards that ran before this one. */
  readonly trace: readonly TraceEntry[];
  /** The caller's unit of work for this run, to hand to every port call (see src/ports.ts). */
  readonly unit?: unknown;
  /** The admit option {@link BeforeChallenge}: `policy` asks it before it creates an approval. */
  readonly beforeChallenge?: BeforeChallenge;
}

/**
 * Asked by `policy` right before it creates an approval challenge (not when an approval token is
 * redeemed, nor in dry_run): a denial answers the run instead, and no approval is created. The gateway
 * runs the capability's own preflight here, so no operator is asked to approve a call that would fail.
 * A throw is a fault of `policy` (the chain fails closed).
 */
export type BeforeChallenge = (
  facts: GuardFacts,
  request: GuardRequest,
) => DenyDecision | undefined | Promise<DenyDecision | undefined>;

/** The approval object a `pending_approval` challenge carries back to the caller. */
export interface ApprovalChallenge {
  readonly approval_id: string;
  /** Shown once; bound to the capability id, version and the exact params. */
  readonly approval_token: string;
  readonly status: 'pending';
  readonly reason: string;
  readonly capability_id: string;
  readonly capability_version: string;
  readonly params_hash: string;
  readonly expires_at: string;
}

/** A denial detail: a small JSON object (the envelope's `details[]` item). */
export type GuardDetail = Readonly<Record<string, unknown>>;

/** The guard lets the request continue, possibly adding facts. */
export interface PassDecision {
  readonly outcome: 'pass';
  readonly facts?: GuardFacts;
}

/** The guard refuses the request with a wire error code. */
export interface DenyDecision {
  readonly outcome: 'deny';
  readonly code: ErrorCode;
  readonly message: string;
  /** Overrides the error table's default hint, e.g. naming the missing onboarding step. */
  readonly hint?: string;
  readonly schemaPointer?: string;
  readonly details?: readonly GuardDetail[];
  readonly retryAfterSeconds?: number;
}

/** The guard stops the request until someone acts (an operator approval). Not an error. */
export interface ChallengeDecision {
  readonly outcome: 'challenge';
  readonly code: 'pending_approval';
  readonly approval: ApprovalChallenge;
}

/** Every decision a guard can return. */
export type GuardDecision = PassDecision | DenyDecision | ChallengeDecision;

/** What the settle phase reports to each guard's `settle` hook. */
export interface SettleContext {
  readonly request: GuardRequest;
  readonly facts: GuardFacts;
  readonly mode: GuardMode;
  readonly outcome: SettleOutcome;
  /** The error code of a denial or failure. */
  readonly code?: ErrorCode;
  /** The check-phase trace, including the deciding guard, plus settle hooks that already ran. */
  readonly trace: readonly TraceEntry[];
  /** The cost the handler reported, if any (credits, decimal string). */
  readonly actualCostCredits?: string;
  /** The approval this run created (pending_approval) or consumed. */
  readonly approvalId?: string;
  /** Facts of the settle hooks that already ran (settle unwinds in reverse chain order). */
  readonly settled: SettleFacts;
  /**
   * The caller writes: a hook returns what it would write (`charge`, `auditRecords`) instead of
   * writing it through its port (`ExecuteOptions.returnWrites`).
   */
  readonly returnWrites?: boolean;
  /** The caller's unit of work for this settle, to hand to every port call (see src/ports.ts). */
  readonly unit?: unknown;
}

/** The final outcome of one request, recorded by the settle phase. */
export type SettleOutcome = 'succeeded' | 'failed' | 'denied' | 'pending_approval' | 'accepted' | 'simulated';

/** Facts a settle hook adds for hooks that run after it (settle unwinds in reverse order). */
export interface SettleFacts {
  readonly auditId?: string;
  readonly chargedCredits?: string;
  /** With `returnWrites`: the charge billing did not write (the caller writes it, or fails the run). */
  readonly charge?: ChargeRequest;
  /** With `returnWrites`: the audit records audit did not append, in order, each with its `audit_id`. */
  readonly auditRecords?: readonly AuditRecord[];
}

/** One recorded guard decision. */
export interface TraceEntry {
  readonly guard: GuardName;
  readonly phase: 'check' | 'settle';
  readonly outcome: 'pass' | 'deny' | 'challenge' | 'fault';
  readonly code?: string;
  readonly duration_ms: number;
  /** The guard ran in shadow mode: its decision was recorded but not enforced. */
  readonly shadow?: true;
}

/**
 * A guard: a name and a `check`. It returns a decision and throws only for faults (the runner turns a
 * throw into a fault and never into a pass). `settle` runs after the handler, for audit and billing.
 */
export interface Guard {
  readonly name: GuardName;
  check(context: GuardContext): GuardDecision | Promise<GuardDecision>;
  settle?(context: SettleContext): SettleFacts | undefined | Promise<SettleFacts | undefined>;
}

/**
 * Identity helper that gives a guard literal full type inference.
 * @example
 * const alwaysPass = defineGuard({ name: 'egress', check: () => ({ outcome: 'pass' }) });
 */
export function defineGuard(guard: Guard): Guard {
  return guard;
}

/** A `pass` decision, optionally with facts. */
export function pass(facts?: GuardFacts): PassDecision {
  return facts === undefined ? { outcome: 'pass' } : { outcome: 'pass', facts };
}

/** A `deny` decision. */
export function deny(
  code: ErrorCode,
  message: string,
  extra: Omit<DenyDecision, 'outcome' | 'code' | 'message'> = {},
): DenyDecision {
  return { outcome: 'deny', code, message, ...extra };
}
