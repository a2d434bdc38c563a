import type { ErrorCode } from '@agw/contracts';
import type { InstallationState, JsonSchema, SettleOutcome, TraceEntry } from './guard.js';

// The ports: the only things the guards know about storage and the outside world. The gateway
// implements them with PostgreSQL/Redis; src/memory/ holds in-memory versions for tests and embedding.
// A port that cannot reach its backing service throws GuardFault({ code: 'dependency_unavailable' }).
//
// The ports a run writes or reads its money through (AuditSink, WalletStore, ApprovalStore) take the
// run's unit of work as their last argument: whatever the caller gave `admit`, `dryRun`, `execute`,
// `defer` or `fail` as `unit` (a database transaction, say), opaque to the chain and handed unchanged
// to every port call of that run. A port finds the caller's transaction there, not in ambient state
// (AsyncLocalStorage); undefined when the caller gave none. In-memory ports ignore it.

/** A value that may be returned directly or as a promise. */
export type MaybePromise<T> = T | Promise<T>;

/** The current time. Business time (expiry, budget windows) always comes from here. */
export interface Clock {
  now(): Date;
}

/** A stored API key: never the plaintext, only the sha-256 hex of its secret part. */
export interface KeyRecord {
  readonly key_id: string;
  readonly prefix: string;
  /** sha-256 of the secret part, 64 lowercase hex characters. */
  readonly hash: string;
  readonly kind: 'bootstrap' | 'installation';
  readonly installation_id: string;
  readonly organization_id: string;
  readonly scopes: readonly string[];
  /** ISO 8601 timestamp or null (never expires). */
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
}

/** Looks keys up by their public prefix. */
export interface KeyStore {
  findByPrefix(prefix: string): MaybePromise<KeyRecord | undefined>;
}

/** Reads the onboarding state of an installation (joined with its organization's `is_active`). */
export interface InstallationStore {
  getState(installationId: string): MaybePromise<InstallationState | undefined>;
}

/** An operator approval of one run of one capability with exact params. */
export interface ApprovalRecord {
  readonly approval_id: string;
  /** sha-256 hex of the approval token; the token itself is never stored. */
  readonly token_hash: string;
  readonly status: 'pending' | 'approved' | 'denied';
  readonly organization_id: string;
  readonly installation_id: string;
  readonly capability_id: string;
  readonly capability_version: string;
  readonly params_hash: string;
  readonly reason: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly consumed_at: string | null;
}

/**
 * What the policy guard asks the approval store to create. `params` are the run's params, so a store
 * can show the operator what they approve (keep them encrypted at rest); only `params_hash` binds.
 */
export type NewApproval = Omit<ApprovalRecord, 'approval_id' | 'status' | 'consumed_at'> & {
  readonly params?: unknown;
};

/** Pending approvals, decided by an operator, consumed once by the run they approve. */
export interface ApprovalStore {
  create(approval: NewApproval, unit?: unknown): MaybePromise<ApprovalRecord>;
  findByTokenHash(tokenHash: string, unit?: unknown): MaybePromise<ApprovalRecord | undefined>;
  /**
   * Marks an approved record consumed, atomically: true for exactly one caller, false if it was already
   * consumed or is not approved (a compare-and-set in the store).
   */
  consume(approvalId: string, consumedAt: string, unit?: unknown): MaybePromise<boolean>;
  /**
   * Dedupe: finds the still-pending, unexpired approval of the same installation, capability, version
   * and params hash, and rebinds it to a fresh token hash (the earlier token stops working). Returns
   * undefined when there is none; the guard then creates a new approval. Optional for older stores.
   */
  renewPending?(
    match: PendingApprovalMatch,
    tokenHash: string,
    now: string,
    unit?: unknown,
  ): MaybePromise<ApprovalRecord | undefined>;
}

/** What identifies "the same run" for approval dedupe. */
export type PendingApprovalMatch = Pick<
  ApprovalRecord,
  'installation_id' | 'capability_id' | 'capability_version' | 'params_hash'
>;

/** One rate-limit check: consume `cost` points from `key`'s bucket of `limit` per `windowSeconds`. */
export interface RateLimitRequest {
  readonly key: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly cost: number;
}

/** The bucket after the attempt. */
export interface RateLimitResult {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the bucket has points again (0 when allowed). */
  readonly retryAfterSeconds: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
}

/** An atomic rate limiter (Redis-shared in the gateway, in-process otherwise). */
export interface RateLimiter {
  consume(request: RateLimitRequest): MaybePromise<RateLimitResult>;
}

/** One audit record: who did what to which capability, and what came of it. */
export interface AuditRecord {
  /** An id chosen by the writer (the audit guard when it defers a decision); sinks must keep it. */
  readonly audit_id?: string;
  readonly occurred_at: string;
  readonly request_id: string | null;
  readonly actor_type: 'installation' | 'anonymous';
  readonly actor_id: string | null;
  readonly api_key_prefix: string | null;
  readonly organization_id: string | null;
  readonly action: 'capability.invoke' | 'capability.dry_run';
  readonly target_type: 'capability';
  readonly target_id: string;
  readonly capability_version: string;
  readonly params_hash: string | null;
  /** `allowed` is the decision written before the handler; the others are final outcomes. */
  readonly outcome: 'allowed' | SettleOutcome;
  readonly reason_code: ErrorCode | null;
  readonly idempotency_key: string | null;
  readonly source_ip: string | null;
  readonly user_agent: string | null;
  /** How the call arrived (`GuardRequest.transport`), if the caller said. */
  readonly transport: string | null;
  /** The operator approval this run created or consumed, if any. */
  readonly approval_id: string | null;
  /** The allowed-decision record this outcome belongs to, if one was written. */
  readonly decision_audit_id: string | null;
  readonly charged_credits: string | null;
  /** Every guard decision of the request, denials included. */
  readonly trace: readonly TraceEntry[];
}

/** An append-only audit log. */
export interface AuditSink {
  /** Appends a record durably and returns its id (the response's `audit_id`). */
  append(record: AuditRecord, unit?: unknown): MaybePromise<string>;
}

/** A budget policy profile; a null cap means no cap. Amounts are decimal credit strings. */
export interface BudgetPolicy {
  readonly policy_profile_id: string | null;
  readonly task_cap_credits: string | null;
  readonly daily_cap_credits: string | null;
  readonly monthly_cap_credits: string | null;
  readonly burn_rate_hourly_cap_credits: string | null;
  readonly kill_switch_enabled: boolean;
}

/** Everything billing needs in one read: balance, policy and spend per window. */
export interface WalletSnapshot {
  readonly organization_id: string;
  readonly balance_credits: string;
  readonly policy: BudgetPolicy;
  /** Spent in the last hour (burn rate), the current UTC day and the current UTC month. */
  readonly spent: {
    readonly hour_credits: string;
    readonly today_credits: string;
    readonly month_credits: string;
  };
}

/** One charge of an executed run. */
export interface ChargeRequest {
  readonly organization_id: string;
  readonly amount_credits: string;
  /** At most one charge per scope, ever: a replay or a second settle charges nothing. */
  readonly idempotency_scope: string;
  readonly capability_id: string;
  readonly occurred_at: string;
}

/** The wallet, its budget policy and its append-only ledger. */
export interface WalletStore {
  getSnapshot(organizationId: string, now: Date, unit?: unknown): MaybePromise<WalletSnapshot>;
  /** Appends a debit unless this scope was already charged; `charged` false means it was. */
  charge(request: ChargeRequest, unit?: unknown): MaybePromise<{ readonly charged: boolean }>;
  /**
   * Optional: the first instant at which at least `credits` of the spend counted in the burn-rate hour at
   * `now` will have left that window (null if it never holds that much). A burn-rate refusal names its
   * wait from it; without it the wait is the window's length.
   */
  hourSpendReleasedAt?(
    organizationId: string,
    now: Date,
    credits: string,
    unit?: unknown,
  ): MaybePromise<Date | null>;
}

/** The organization's kill switch: all the policy guard needs of the budget policy. */
export interface KillSwitchState {
  readonly enabled: boolean;
  readonly policy_profile_id: string | null;
}

/**
 * Reads the kill switch alone. Cheaper than a {@link WalletSnapshot} (no balance, no spend sums) and
 * cacheable: the policy guard reads it on every run, billing reads the snapshot only for paid runs.
 */
export interface KillSwitchStore {
  getKillSwitch(organizationId: string): MaybePromise<KillSwitchState>;
}

/** The hosts capabilities may reach. Entries are host names or `*.domain` wildcards. */
export interface EgressPolicy {
  allowedHosts(organizationId: string | undefined): MaybePromise<readonly string[]>;
}

/** One schema violation; `schema_pointer` is the JSON Pointer of the offending value. */
export interface SchemaViolation {
  readonly schema_pointer: string;
  readonly keyword: string;
  readonly message: string;
}

/**
 * Validates a value against a JSON Schema; implementations compile each schema once. The guards always
 * pass the schema object; `string` (the name or `$id` of a registered schema) is accepted so that the
 * contracts' `createValidator()` fits this port as it is.
 */
export interface SchemaValidator {
  validate(
    schema: JsonSchema | string,
    value: unknown,
  ): { readonly valid: true } | { readonly valid: false; readonly violations: readonly SchemaViolation[] };
}
