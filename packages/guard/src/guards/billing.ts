import { randomUUID } from 'node:crypto';
import { GuardConfigError } from '../errors.js';
import { type Guard, type GuardRequest, pass, type SettleContext } from '../guard.js';
import { formatCredits, parseCredits } from '../money.js';
import type { Clock, WalletStore } from '../ports.js';
import { budgetRefusal } from './budget-refusal.js';

/** Options of {@link billingGuard}. */
export interface BillingGuardOptions {
  readonly wallet: WalletStore;
  readonly clock: Clock;
}

/**
 * `billing`: the capability's `cost_credits` is the estimate (the maximum one run may cost). The
 * check refuses with 403 `budget_exceeded` when it would break the balance or a cap (task, daily,
 * monthly, hourly burn rate), one `details[]` entry per broken cap, and with the wait when every broken
 * cap lifts at a known time ({@link budgetRefusal}). The settle phase charges exactly
 * once, and only for a `succeeded` outcome: the handler's reported cost clamped to the estimate,
 * under an idempotency scope so a replay or retry is never charged again.
 */
export function billingGuard(options: BillingGuardOptions): Guard {
  if (typeof options?.wallet?.getSnapshot !== 'function' || typeof options.wallet.charge !== 'function') {
    throw new GuardConfigError('billingGuard needs wallet: WalletStore.');
  }
  if (typeof options.clock?.now !== 'function') throw new GuardConfigError('billingGuard needs a clock.');
  const { wallet, clock } = options;

  return {
    name: 'billing',
    async check({ request, facts, unit }) {
      const estimate = parseCredits(request.capability.cost_credits);
      const estimatedCostCredits = formatCredits(estimate);
      if (estimate === 0n) return pass({ estimatedCostCredits });
      const principal = facts.principal;
      if (principal === undefined) throw new Error('No principal: installation_key must run before billing.');
      // Reuse the snapshot policy read for the kill switch: one wallet read per invoke.
      const snapshot = facts.wallet?.organization_id === principal.organization_id ? facts.wallet : undefined;
      const refusal = await budgetRefusal({ wallet, clock }, principal.organization_id, estimate, {
        snapshot,
        unit,
      });
      return refusal ?? pass({ estimatedCostCredits });
    },
    async settle(context) {
      if (context.outcome !== 'succeeded') return undefined;
      const amount = chargeAmount(context);
      const principal = context.facts.principal;
      if (amount === 0n || principal === undefined) return undefined;
      const charge = {
        organization_id: principal.organization_id,
        amount_credits: formatCredits(amount),
        idempotency_scope: chargeScope(
          context.request,
          principal.installation_id,
          context.facts.decisionAuditId,
        ),
        capability_id: context.request.capability.id,
        occurred_at: clock.now().toISOString(),
      };
      // The caller writes the charge with its result, or commits nothing (ExecuteOptions.returnWrites).
      if (context.returnWrites) return { chargedCredits: charge.amount_credits, charge };
      const { charged } = await wallet.charge(charge, context.unit);
      return charged ? { chargedCredits: charge.amount_credits } : undefined;
    },
  };
}

/** The handler's reported cost, never more than the estimate the caps were checked against. */
function chargeAmount(context: SettleContext): bigint {
  const estimate = parseCredits(context.request.capability.cost_credits);
  if (context.actualCostCredits === undefined) return estimate;
  const actual = parseCredits(context.actualCostCredits);
  if (actual < 0n) return 0n;
  if (actual > estimate) return estimate;
  return actual;
}

/**
 * The ledger scope of one run's charge: the idempotency key if any, else the request id, else the
 * audited decision. Exported for long-running runs (`accepted`), whose job charges on completion
 * through `WalletStore.charge` with the same scope, so a replay is never charged again.
 */
export function chargeScope(
  request: GuardRequest,
  installationId: string,
  decisionAuditId: string | undefined,
): string {
  if (request.idempotencyKey !== undefined) return `idempotency:${installationId}:${request.idempotencyKey}`;
  if (request.requestId !== undefined) return `request:${installationId}:${request.requestId}`;
  return `run:${installationId}:${decisionAuditId ?? randomUUID()}`;
}
