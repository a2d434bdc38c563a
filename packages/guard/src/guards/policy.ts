import { hashParams } from '../canonical-json.js';
import { GuardConfigError } from '../errors.js';
import {
  deny,
  type Guard,
  type GuardCapability,
  type GuardContext,
  type GuardDecision,
  pass,
  type RateLimitFact,
} from '../guard.js';
import type {
  ApprovalStore,
  Clock,
  KillSwitchState,
  KillSwitchStore,
  RateLimiter,
  WalletSnapshot,
  WalletStore,
} from '../ports.js';
import { createApprovalChallenge, redeemApprovalToken } from './policy-approval.js';
import { consumeRateLimits, type RateLimits, validateRateLimits } from './policy-rate-limit.js';

/** Options of {@link policyGuard}. */
export interface PolicyGuardOptions {
  readonly clock: Clock;
  readonly approvals: ApprovalStore;
  /** How long a pending approval and its token stay valid. Default 86 400 s (24 h). */
  readonly approvalTtlSeconds?: number;
  readonly rateLimiter?: RateLimiter;
  /** Buckets per installation and per installation × capability; needs `rateLimiter`. */
  readonly rateLimits?: RateLimits;
  /**
   * For the organization's kill switch (the budget policy profile), when `killSwitch` is not set. The
   * snapshot read here is handed to billing as the `wallet` fact (one wallet read per run).
   */
  readonly wallet?: Pick<WalletStore, 'getSnapshot'>;
  /**
   * Reads the kill switch alone instead of a wallet snapshot: a free run then reads no wallet at all
   * (billing reads the snapshot for a paid one). Takes precedence over `wallet`; worth caching.
   */
  readonly killSwitch?: KillSwitchStore;
  /** Extra approval rules: return a reason to require an approval, undefined otherwise. */
  readonly requireApproval?: (capability: GuardCapability, context: GuardContext) => string | undefined;
}

/**
 * `policy`, in this order: the organization's kill switch (403 `forbidden`), the rate limits (429
 * `rate_limited` with `retryAfterSeconds`; skipped in dry_run, which changes no state), then approvals:
 * a capability of risk `high`/`critical`, marked `approval: 'always'`, or named by `requireApproval`
 * is answered with a `pending_approval` challenge whose token is bound to the capability id, version
 * and params hash. An invoke carrying an approved token for exactly those params passes and consumes
 * it; a denied, expired, used or mismatched token is 403 `approval_invalid`. Before it creates a
 * challenge it asks the run's `beforeChallenge` (an admit option), whose denial answers instead. In
 * dry_run it only reports `approvalRequired`/`approvalReason` in the facts.
 */
export function policyGuard(options: PolicyGuardOptions): Guard {
  if (typeof options?.clock?.now !== 'function') throw new GuardConfigError('policyGuard needs a clock.');
  const { approvals } = options;
  if (typeof approvals?.create !== 'function' || typeof approvals.findByTokenHash !== 'function') {
    throw new GuardConfigError('policyGuard needs approvals: ApprovalStore.');
  }
  const approvalTtlSeconds = options.approvalTtlSeconds ?? 86_400;
  if (!Number.isInteger(approvalTtlSeconds) || approvalTtlSeconds < 1) {
    throw new GuardConfigError('approvalTtlSeconds must be a positive integer.');
  }
  if (options.rateLimits !== undefined) {
    if (typeof options.rateLimiter?.consume !== 'function') {
      throw new GuardConfigError('rateLimits need a rateLimiter: RateLimiter.');
    }
    validateRateLimits(options.rateLimits);
  }
  const { clock, wallet, killSwitch, rateLimiter, rateLimits, requireApproval } = options;

  return {
    name: 'policy',
    async check(context): Promise<GuardDecision> {
      const { request, facts, mode } = context;
      const principal = facts.principal;
      if (principal === undefined) throw new Error('No principal: installation_key must run before policy.');

      let snapshot: WalletSnapshot | undefined;
      let switchState: KillSwitchState | undefined;
      if (killSwitch !== undefined) {
        switchState = await killSwitch.getKillSwitch(principal.organization_id);
      } else if (wallet !== undefined) {
        snapshot = await wallet.getSnapshot(principal.organization_id, clock.now(), context.unit);
        const { kill_switch_enabled, policy_profile_id } = snapshot.policy;
        switchState = { enabled: kill_switch_enabled, policy_profile_id };
      }
      if (switchState?.enabled === true) {
        return deny('forbidden', 'The organization kill switch is on: no capability runs.', {
          hint: 'Stop and hand over to the operator, who can turn the kill switch off.',
          details: [{ reason: 'kill_switch', policy_profile_id: switchState.policy_profile_id }],
        });
      }

      let rateLimit: RateLimitFact | undefined;
      if (mode === 'invoke' && rateLimiter !== undefined && rateLimits !== undefined) {
        const outcome = await consumeRateLimits({
          rateLimiter,
          rateLimits,
          principal,
          capability: request.capability,
        });
        if (outcome.denied) return outcome.denied;
        rateLimit = outcome.fact;
      }

      const paramsHash = facts.paramsHash ?? hashParams(request.params);
      const reason = approvalReason(request.capability, context, requireApproval);
      const base = {
        paramsHash,
        ...(rateLimit === undefined ? {} : { rateLimit }),
        ...(snapshot === undefined ? {} : { wallet: snapshot }),
      };
      if (reason === undefined) return pass({ ...base, approvalRequired: false });
      if (mode === 'dry_run') return pass({ ...base, approvalRequired: true, approvalReason: reason });

      const now = clock.now();
      if (request.approvalToken !== undefined) {
        return redeemApprovalToken({
          approvals,
          token: request.approvalToken,
          principal,
          request,
          paramsHash,
          now,
          base,
          unit: context.unit,
        });
      }
      // Before anyone is asked: a run its own rules refuse is answered now, with no approval created.
      const refused = await context.beforeChallenge?.(facts, request);
      if (refused !== undefined) return refused;
      return createApprovalChallenge({
        approvals,
        principal,
        request,
        paramsHash,
        reason,
        now,
        approvalTtlSeconds,
        unit: context.unit,
      });
    },
  };
}

/** Why this run needs an operator approval, or undefined when it does not. */
export function approvalReason(
  capability: GuardCapability,
  context: GuardContext,
  requireApproval?: PolicyGuardOptions['requireApproval'],
): string | undefined {
  if (capability.approval === 'always') return 'This capability always needs an operator approval.';
  if (capability.risk_level === 'high' || capability.risk_level === 'critical') {
    return `Capabilities of risk ${capability.risk_level} need an operator approval.`;
  }
  return requireApproval?.(capability, context);
}
