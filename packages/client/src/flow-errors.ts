import { brand, hasBrand } from './brand.js';
import type { TypedInvokeResponse } from './typed.js';

/** The answer of the budget check. */
type BudgetCheckResponse = TypedInvokeResponse<'wallet.agent_budget.guard.check'>;

/** Why onboarding stopped and a human must take over (spec: States and transitions, rules 3–4). */
export type HandOverReason = 'approval_timeout' | 'blocked' | 'suppressed' | 'organization_inactive';

const handOverMessages: Record<HandOverReason, string> = {
  approval_timeout: 'Operator approval is still pending after 15 minutes of polling: hand over to a human.',
  blocked: 'The operator blocked this installation: stop and hand over to a human.',
  suppressed:
    'The one-time code delivery was suppressed: stop and clarify with a human; resending does not help.',
  organization_inactive: 'The organization is inactive: stop and hand over to the operator.',
};

/**
 * Onboarding reached a state the spec says an agent must not work around. The installation key was
 * already issued by then: it is the client's key and was passed to `onInstallationKey`, never put here.
 */
export class HandOverToHumanError extends Error {
  override readonly name = 'HandOverToHumanError';
  readonly reason: HandOverReason;
  /** Which delivery was suppressed (reason `suppressed`). */
  readonly delivery: 'owner' | 'agent' | undefined;
  readonly organizationId: string | undefined;
  readonly installationId: string | undefined;
  /** Milliseconds spent waiting for approval (reason `approval_timeout`). */
  readonly waitedMs: number | undefined;

  constructor(init: {
    reason: HandOverReason;
    delivery?: 'owner' | 'agent';
    organizationId?: string | undefined;
    installationId?: string | undefined;
    waitedMs?: number;
    cause?: unknown;
  }) {
    super(handOverMessages[init.reason], init.cause === undefined ? undefined : { cause: init.cause });
    brand(this, 'HandOverToHumanError');
    this.reason = init.reason;
    this.delivery = init.delivery;
    this.organizationId = init.organizationId;
    this.installationId = init.installationId;
    this.waitedMs = init.waitedMs;
  }

  /** True for a HandOverToHumanError from any copy of this SDK. */
  static isHandOverToHumanError(value: unknown): value is HandOverToHumanError {
    return hasBrand(value, 'HandOverToHumanError');
  }
}

/** The dry run of a paid capability said the params are not valid; nothing was invoked. */
export class DryRunInvalidError extends Error {
  override readonly name = 'DryRunInvalidError';
  readonly capabilityId: string;
  /** The dry run's `violations` (JSON Pointers and messages). */
  readonly violations: Record<string, unknown>[];
  readonly auditId: string;

  constructor(init: { capabilityId: string; violations: Record<string, unknown>[]; auditId: string }) {
    super(
      `Dry run of ${init.capabilityId} is not valid (${init.violations.length} violation(s)); nothing was invoked`,
    );
    brand(this, 'DryRunInvalidError');
    this.capabilityId = init.capabilityId;
    this.violations = init.violations;
    this.auditId = init.auditId;
  }

  /** True for a DryRunInvalidError from any copy of this SDK. */
  static isDryRunInvalidError(value: unknown): value is DryRunInvalidError {
    return hasBrand(value, 'DryRunInvalidError');
  }
}

/**
 * `quote()`: the dry run was valid but its answer holds no quote (a gateway that issues none, or no
 * estimated cost). Nothing is wrong with the params: invoke without a quote, or ask the operator.
 */
export class QuoteNotIssuedError extends Error {
  override readonly name = 'QuoteNotIssuedError';
  readonly capabilityId: string;
  /** The dry run's audit id. */
  readonly auditId: string;

  constructor(init: { capabilityId: string; auditId: string }) {
    super(`Dry run of ${init.capabilityId} is valid but the gateway issued no quote; invoke without one`);
    brand(this, 'QuoteNotIssuedError');
    this.capabilityId = init.capabilityId;
    this.auditId = init.auditId;
  }

  /** True for a QuoteNotIssuedError from any copy of this SDK. */
  static isQuoteNotIssuedError(value: unknown): value is QuoteNotIssuedError {
    return hasBrand(value, 'QuoteNotIssuedError');
  }
}

/** `wallet.agent_budget.guard.check` did not allow the cost; the paid capability was not invoked. */
export class BudgetDeniedError extends Error {
  override readonly name = 'BudgetDeniedError';
  readonly capabilityId: string;
  readonly estimatedCostCredits: number;
  /** The whole guard-check answer; the decision and the caps are under `guard.result`. */
  readonly guard: BudgetCheckResponse;

  constructor(init: { capabilityId: string; estimatedCostCredits: number; guard: BudgetCheckResponse }) {
    super(
      init.guard.status === 'succeeded'
        ? `Budget check denied ${init.estimatedCostCredits} credits for ${init.capabilityId}; nothing was invoked`
        : `Budget check for ${init.capabilityId} ended with status ${init.guard.status}; nothing was invoked`,
    );
    brand(this, 'BudgetDeniedError');
    this.capabilityId = init.capabilityId;
    this.estimatedCostCredits = init.estimatedCostCredits;
    this.guard = init.guard;
  }

  /** True for a BudgetDeniedError from any copy of this SDK. */
  static isBudgetDeniedError(value: unknown): value is BudgetDeniedError {
    return hasBrand(value, 'BudgetDeniedError');
  }
}

/** An `accepted` invocation did not finish within `maxWaitMs`; it may still finish on the gateway. */
export class InvocationTimeoutError extends Error {
  override readonly name = 'InvocationTimeoutError';
  readonly auditId: string;
  /** The last `poll` object, to resume with `pollInvocation`. */
  readonly poll: { url: string; retry_after_seconds?: number };

  constructor(init: {
    auditId: string;
    poll: { url: string; retry_after_seconds?: number };
    waitedMs: number;
  }) {
    super(`Invocation ${init.auditId} still running after ${init.waitedMs} ms`);
    brand(this, 'InvocationTimeoutError');
    this.auditId = init.auditId;
    this.poll = init.poll;
  }

  /** True for an InvocationTimeoutError from any copy of this SDK. */
  static isInvocationTimeoutError(value: unknown): value is InvocationTimeoutError {
    return hasBrand(value, 'InvocationTimeoutError');
  }
}

/**
 * POST /register answered a replay (the same Idempotency-Key was sent again, e.g. by a retry after a
 * lost answer): the gateway shows the bootstrap key only in the first answer, so this registration
 * cannot continue. Register again with a new Idempotency-Key and another app slug, or ask the operator.
 */
export class RegistrationReplayedError extends Error {
  override readonly name = 'RegistrationReplayedError';
  readonly appId: string;
  readonly appSlug: string;
  /** The gateway's next step. */
  readonly hint: string | undefined;

  constructor(init: { appId: string; appSlug: string; hint?: string | undefined }) {
    super(
      `POST /register was replayed for app '${init.appSlug}': the bootstrap key is shown only in the first answer. ` +
        'Register again with a new Idempotency-Key and another app slug, or ask the gateway operator.',
    );
    brand(this, 'RegistrationReplayedError');
    this.appId = init.appId;
    this.appSlug = init.appSlug;
    this.hint = init.hint;
  }

  /** True for a RegistrationReplayedError from any copy of this SDK. */
  static isRegistrationReplayedError(value: unknown): value is RegistrationReplayedError {
    return hasBrand(value, 'RegistrationReplayedError');
  }
}
