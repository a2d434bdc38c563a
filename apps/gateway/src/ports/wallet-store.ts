import { formatCredits, parseCredits, type WalletSnapshot, type WalletStore } from '@agw/guard';
import type { KnexExecutor } from './executor.js';

type Amount = string | number | null;

/** A numeric column as a canonical credit string (`'10.500000'` → `'10.5'`). */
export function credits(value: Amount): string {
  if (value === null) return '0';
  return formatCredits(parseCredits(typeof value === 'number' ? value.toFixed(6) : value));
}

function cap(value: Amount): string | null {
  return value === null ? null : credits(value);
}

/**
 * The guard's WalletStore over PostgreSQL. An organization without a `wallets` row has balance 0;
 * without a `policy_profiles` row it has no caps and the kill switch off (policy_profile_id null).
 * Spend windows: the last 60 minutes (burn rate), the current UTC day and the current UTC month.
 */
export function createKnexWalletStore(executor: KnexExecutor): WalletStore {
  return {
    async getSnapshot(organizationId: string, now: Date): Promise<WalletSnapshot> {
      const db = executor.current();
      const hourStart = new Date(now.getTime() - 3_600_000);
      const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const [wallet, policy, spent] = await Promise.all([
        db('wallets').where({ organization_id: organizationId }).first('balance'),
        db('policy_profiles').where({ organization_id: organizationId }).first(),
        db('wallet_ledger')
          .where({ organization_id: organizationId, kind: 'charge' })
          .andWhere('occurred_at', '>=', monthStart < hourStart ? monthStart : hourStart)
          .first(
            db.raw('coalesce(sum(amount) filter (where occurred_at >= ?), 0) as hour', [hourStart]),
            db.raw('coalesce(sum(amount) filter (where occurred_at >= ?), 0) as today', [dayStart]),
            db.raw('coalesce(sum(amount) filter (where occurred_at >= ?), 0) as month', [monthStart]),
          ),
      ]);
      return {
        organization_id: organizationId,
        balance_credits: credits(wallet?.balance ?? null),
        policy: {
          policy_profile_id: policy ? `policy_${organizationId}` : null,
          task_cap_credits: cap(policy?.task_cap ?? null),
          daily_cap_credits: cap(policy?.daily_cap ?? null),
          monthly_cap_credits: cap(policy?.monthly_cap ?? null),
          burn_rate_hourly_cap_credits: cap(policy?.burn_rate_hourly_cap ?? null),
          kill_switch_enabled: policy?.kill_switch === true,
        },
        spent: {
          hour_credits: credits(spent?.hour ?? null),
          today_credits: credits(spent?.today ?? null),
          month_credits: credits(spent?.month ?? null),
        },
      };
    },
    async charge(request) {
      const db = executor.current();
      // The unique scope makes a second charge of the same run a no-op; the balance moves only with
      // an inserted ledger row, in the caller's transaction.
      const inserted = await db('wallet_ledger')
        .insert({
          organization_id: request.organization_id,
          amount: request.amount_credits,
          kind: 'charge',
          idempotency_scope: request.idempotency_scope,
          capability_id: request.capability_id,
          occurred_at: request.occurred_at,
        })
        .onConflict('idempotency_scope')
        .ignore()
        .returning('id');
      if (inserted.length === 0) return { charged: false };
      await db('wallets')
        .insert({ organization_id: request.organization_id, balance: `-${request.amount_credits}` })
        .onConflict('organization_id')
        .merge({ balance: db.raw('wallets.balance - ?', [request.amount_credits]), updated_at: db.fn.now() });
      return { charged: true };
    },
  };
}
