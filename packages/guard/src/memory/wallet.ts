import { addCredits, formatCredits, parseCredits } from '../money.js';
import type { BudgetPolicy, Clock, KillSwitchStore, WalletSnapshot, WalletStore } from '../ports.js';

/** One ledger entry: a credit (positive) or a charge (negative). Append-only. */
export interface LedgerEntry {
  readonly organization_id: string;
  readonly amount_credits: string;
  readonly kind: 'credit' | 'charge';
  readonly occurred_at: string;
  readonly idempotency_scope: string | null;
  readonly capability_id: string | null;
}

/** An in-memory {@link WalletStore} (and kill switch) with the operator's side: credit and set the policy. */
export interface MemoryWallet extends WalletStore, KillSwitchStore {
  credit(organizationId: string, amountCredits: string): void;
  setPolicy(organizationId: string, changes: Partial<BudgetPolicy>): void;
  ledger(organizationId: string): readonly LedgerEntry[];
}

const noPolicy: BudgetPolicy = {
  policy_profile_id: null,
  task_cap_credits: null,
  daily_cap_credits: null,
  monthly_cap_credits: null,
  burn_rate_hourly_cap_credits: null,
  kill_switch_enabled: false,
};

/**
 * Creates an in-memory wallet. Spend windows: the last 60 minutes (burn rate), the current UTC day
 * and the current UTC month.
 */
export function createMemoryWallet(options: { readonly clock: Clock }): MemoryWallet {
  const entries: LedgerEntry[] = [];
  const policies = new Map<string, BudgetPolicy>();
  const chargedScopes = new Set<string>();

  /** The organization's charges from `since` to `until` (inclusive), as times and positive amounts. */
  function chargesIn(organizationId: string, since: number, until: number) {
    return entries
      .filter((entry) => entry.organization_id === organizationId && entry.kind === 'charge')
      .map((entry) => ({ at: Date.parse(entry.occurred_at), amount: -parseCredits(entry.amount_credits) }))
      .filter((charge) => charge.at >= since && charge.at <= until);
  }

  function spentSince(organizationId: string, since: number, until: number): string {
    return formatCredits(
      chargesIn(organizationId, since, until).reduce((sum, charge) => sum + charge.amount, 0n),
    );
  }

  return {
    getSnapshot(organizationId, now): WalletSnapshot {
      const at = now.getTime();
      const dayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
      const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
      const balance = entries
        .filter((entry) => entry.organization_id === organizationId)
        .map((entry) => entry.amount_credits);
      return {
        organization_id: organizationId,
        balance_credits: addCredits('0', ...balance),
        policy: policies.get(organizationId) ?? noPolicy,
        spent: {
          hour_credits: spentSince(organizationId, at - 3_600_000, at),
          today_credits: spentSince(organizationId, dayStart, at),
          month_credits: spentSince(organizationId, monthStart, at),
        },
      };
    },
    hourSpendReleasedAt(organizationId, now, credits) {
      // A charge at t counts while t >= now - 1 h: it leaves the window 1 h and 1 ms after t.
      const at = now.getTime();
      const charges = chargesIn(organizationId, at - 3_600_000, at).sort((a, b) => a.at - b.at);
      const needed = parseCredits(credits);
      let released = 0n;
      for (const charge of charges) {
        released += charge.amount;
        if (released >= needed) return new Date(charge.at + 3_600_001);
      }
      return null;
    },
    getKillSwitch(organizationId) {
      const policy = policies.get(organizationId) ?? noPolicy;
      return { enabled: policy.kill_switch_enabled, policy_profile_id: policy.policy_profile_id };
    },
    charge(request) {
      if (chargedScopes.has(request.idempotency_scope)) return { charged: false };
      chargedScopes.add(request.idempotency_scope);
      entries.push({
        organization_id: request.organization_id,
        amount_credits: formatCredits(-parseCredits(request.amount_credits)),
        kind: 'charge',
        occurred_at: request.occurred_at,
        idempotency_scope: request.idempotency_scope,
        capability_id: request.capability_id,
      });
      return { charged: true };
    },
    credit(organizationId, amountCredits) {
      if (parseCredits(amountCredits) <= 0n) throw new RangeError('A credit must be positive.');
      entries.push({
        organization_id: organizationId,
        amount_credits: formatCredits(parseCredits(amountCredits)),
        kind: 'credit',
        occurred_at: options.clock.now().toISOString(),
        idempotency_scope: null,
        capability_id: null,
      });
    },
    setPolicy(organizationId, changes) {
      policies.set(organizationId, { ...(policies.get(organizationId) ?? noPolicy), ...changes });
    },
    ledger: (organizationId) => entries.filter((entry) => entry.organization_id === organizationId),
  };
}
