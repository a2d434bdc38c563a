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

interface SnapshotRow {
  readonly balance: Amount;
  readonly has_policy: boolean;
  readonly task_cap: Amount;
  readonly daily_cap: Amount;
  readonly monthly_cap: Amount;
  readonly burn_rate_hourly_cap: Amount;
  readonly kill_switch: boolean | null;
  readonly hour: Amount;
  readonly today: Amount;
  readonly month: Amount;
}

// Both tables are keyed by organization_id, so the joins yield exactly one row.
const SNAPSHOT_SQL = `
select w.balance, p.organization_id is not null as has_policy, p.task_cap, p.daily_cap, p.monthly_cap,
       p.burn_rate_hourly_cap, p.kill_switch, s.hour, s.today, s.month
from (select 1) as one
left join wallets w on w.organization_id = ?
left join policy_profiles p on p.organization_id = ?
cross join lateral (
  select coalesce(sum(amount) filter (where occurred_at >= ?), 0) as hour,
         coalesce(sum(amount) filter (where occurred_at >= ?), 0) as today,
         coalesce(sum(amount) filter (where occurred_at >= ?), 0) as month
  from wallet_ledger
  where organization_id = ? and kind = 'charge' and occurred_at >= ?
) as s`;

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
      // One round trip (the hot path reads this on every invoke): balance, policy and the spend sums.
      const result = (await db.raw(SNAPSHOT_SQL, [
        organizationId,
        organizationId,
        hourStart,
        dayStart,
        monthStart,
        organizationId,
        monthStart < hourStart ? monthStart : hourStart,
      ])) as { rows: SnapshotRow[] };
      const row = result.rows[0] as SnapshotRow;
      const policy = row.has_policy ? row : undefined;
      return {
        organization_id: organizationId,
        balance_credits: credits(row.balance),
        policy: {
          policy_profile_id: policy ? `policy_${organizationId}` : null,
          task_cap_credits: cap(policy?.task_cap ?? null),
          daily_cap_credits: cap(policy?.daily_cap ?? null),
          monthly_cap_credits: cap(policy?.monthly_cap ?? null),
          burn_rate_hourly_cap_credits: cap(policy?.burn_rate_hourly_cap ?? null),
          kill_switch_enabled: policy?.kill_switch === true,
        },
        spent: {
          hour_credits: credits(row.hour),
          today_credits: credits(row.today),
          month_credits: credits(row.month),
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
