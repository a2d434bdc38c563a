import { findCapabilityContract } from '@agw/contracts';
import { defineCapabilityHandler, type WalletPolicyView, type WalletView } from '../define.js';
import { numberToMicro, toMicro } from '../money.js';

const contract = findCapabilityContract('wallet.agent_budget.guard.check', '1.0.0');
if (!contract) throw new Error('contracts package lacks wallet.agent_budget.guard.check');

/** Params of `wallet.agent_budget.guard.check`. */
export interface BudgetCheckInput {
  readonly capability_id: string;
  readonly estimated_cost_credits: number;
  readonly window?: 'task' | 'hour' | 'day' | 'month';
}

/** The result: exactly the spec's shape, plus the contract's optional `reason`. */
export interface BudgetCheckResult {
  readonly allowed: boolean;
  readonly organization_id: string;
  readonly wallet_balance_credits: string;
  readonly estimated_cost_credits: number;
  readonly policy: WalletPolicyView;
  readonly ledger: {
    readonly hour_cost_credits: string;
    readonly today_cost_credits: string;
    readonly month_cost_credits: string;
  };
  readonly reason: string | null;
}

/**
 * `wallet.agent_budget.guard.check`: would a run costing `estimated_cost_credits` be allowed now?
 * It is refused when the kill switch is on, or when the estimate exceeds the balance, the task cap,
 * or what is left of the daily, monthly or hourly burn-rate cap. `window` is accepted for the
 * caller's bookkeeping but does not narrow the check: every cap applies to a real run.
 */
export const walletAgentBudgetGuardCheckHandler = defineCapabilityHandler<
  BudgetCheckInput,
  BudgetCheckResult
>({
  contract,
  async handle(input, ctx) {
    const wallet = await ctx.wallet.getSnapshot(ctx.organizationId, ctx.now);
    const reason = refusal(
      wallet,
      numberToMicro(input.estimated_cost_credits, '/params/estimated_cost_credits'),
    );
    return {
      allowed: reason === null,
      organization_id: wallet.organization_id,
      wallet_balance_credits: wallet.balance_credits,
      estimated_cost_credits: input.estimated_cost_credits,
      policy: {
        policy_profile_id: wallet.policy.policy_profile_id,
        task_cap_credits: wallet.policy.task_cap_credits,
        daily_cap_credits: wallet.policy.daily_cap_credits,
        monthly_cap_credits: wallet.policy.monthly_cap_credits,
        burn_rate_hourly_cap_credits: wallet.policy.burn_rate_hourly_cap_credits,
        kill_switch_enabled: wallet.policy.kill_switch_enabled,
      },
      ledger: {
        hour_cost_credits: wallet.spent.hour_credits,
        today_cost_credits: wallet.spent.today_credits,
        month_cost_credits: wallet.spent.month_credits,
      },
      reason,
    };
  },
});

/** Why the estimate would be refused, or null when it is allowed. */
function refusal(wallet: WalletView, estimate: bigint): string | null {
  const { policy, spent } = wallet;
  if (policy.kill_switch_enabled) return 'The organization kill switch is on.';
  const checks: Array<[string, string | null, string]> = [
    ['wallet balance', wallet.balance_credits, '0'],
    ['task cap', policy.task_cap_credits, '0'],
    ['daily cap', policy.daily_cap_credits, spent.today_credits],
    ['monthly cap', policy.monthly_cap_credits, spent.month_credits],
    ['hourly burn-rate cap', policy.burn_rate_hourly_cap_credits, spent.hour_credits],
  ];
  for (const [name, limit, used] of checks) {
    if (limit !== null && toMicro(used) + estimate > toMicro(limit)) {
      return `The estimate exceeds the ${name} (${limit} credits, ${used} used).`;
    }
  }
  return null;
}
