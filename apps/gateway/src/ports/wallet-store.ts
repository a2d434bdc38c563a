import { formatCredits, parseCredits, type WalletSnapshot, type WalletStore } from '@agw/guard';
import type { Knex } from 'knex';
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

// Both tables are keyed by organization_id, so the joins yield exactly one row. The spend sums read the
// buckets kept by CHARGE_SQL: at most 61 minute rows and 31 day rows, however many charges there were.
const SNAPSHOT_SQL = `
select w.balance, p.organization_id is not null as has_policy, p.task_cap, p.daily_cap, p.monthly_cap,
       p.burn_rate_hourly_cap, p.kill_switch, s.hour, s.today, s.month
from (select 1) as one
left join wallets w on w.organization_id = ?
left join policy_profiles p on p.organization_id = ?
cross join lateral (
  select coalesce(sum(amount) filter (where bucket = 'minute'), 0) as hour,
         coalesce(sum(amount) filter (where bucket = 'day' and starts_at >= ?), 0) as today,
         coalesce(sum(amount) filter (where bucket = 'day'), 0) as month
  from wallet_spend
  where organization_id = ?
    and ((bucket = 'minute' and starts_at >= ?) or (bucket = 'day' and starts_at >= ?))
) as s`;

// A charge's ledger row: a second charge of the same scope inserts nothing (and then nothing else happens).
// No row here is shared with another run, so it locks nothing another request waits for.
const LEDGER_SQL = `
insert into wallet_ledger (organization_id, amount, kind, idempotency_scope, capability_id, occurred_at)
values (?, ?, 'charge', ?, ?, ?)
on conflict (idempotency_scope) do nothing
returning id`;

// What a charge moves: the balance, the minute and day spend buckets, and the pruning of minute buckets
// no window reads any more. Every run of the organization updates these rows, so this statement runs
// last before COMMIT (KnexExecutor.beforeCommit): the row locks are held for one round trip.
const SPEND_SQL = `
with charge as (select ?::uuid as organization_id, ?::numeric as amount, ?::timestamptz as occurred_at),
balance as (
  insert into wallets (organization_id, balance)
  select organization_id, -amount from charge
  on conflict (organization_id)
  do update set balance = wallets.balance + excluded.balance, updated_at = now()
), pruned as (
  delete from wallet_spend
  where organization_id = (select organization_id from charge) and bucket = 'minute'
    and starts_at < (select occurred_at from charge) - interval '2 hours'
)
insert into wallet_spend (organization_id, bucket, starts_at, amount)
select organization_id, b.bucket, date_trunc(b.bucket, occurred_at, 'UTC'), amount
from charge cross join (values ('minute'), ('day')) as b(bucket)
on conflict (organization_id, bucket, starts_at)
do update set amount = wallet_spend.amount + excluded.amount`;

/** Balance, policy and spend windows of an organization in one round trip on `db`. */
export async function readWalletSnapshot(
  db: Knex | Knex.Transaction,
  organizationId: string,
  now: Date,
): Promise<WalletSnapshot> {
  // The minute bucket holding the instant 60 minutes ago, and every later one.
  const hourStart = new Date(Math.floor((now.getTime() - 3_600_000) / 60_000) * 60_000);
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  // One round trip (the hot path reads this on every invoke): balance, policy and the spend sums.
  const result = (await db.raw(SNAPSHOT_SQL, [
    organizationId,
    organizationId,
    dayStart,
    organizationId,
    hourStart,
    monthStart,
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
}

/**
 * The guard's WalletStore over PostgreSQL. An organization without a `wallets` row has balance 0;
 * without a `policy_profiles` row it has no caps and the kill switch off (policy_profile_id null).
 * Spend windows: the last 60 minutes (burn rate; whole UTC minutes, so a charge up to 59 s older still
 * counts: a cap errs on the side of refusing), the current UTC day and the current UTC month.
 */
export function createKnexWalletStore(executor: KnexExecutor): WalletStore {
  return {
    getSnapshot: (organizationId, now) => readWalletSnapshot(executor.current(), organizationId, now),
    async charge(request) {
      // The unique scope makes a second charge of the same run a no-op; the balance and the spend move
      // only with an inserted ledger row, in the caller's transaction.
      const db = executor.current();
      const inserted = (await db.raw(LEDGER_SQL, [
        request.organization_id,
        request.amount_credits,
        request.idempotency_scope,
        request.capability_id,
        request.occurred_at,
      ])) as { rows: unknown[] };
      if (inserted.rows.length === 0) return { charged: false };
      const spend = async () => {
        await db.raw(SPEND_SQL, [request.organization_id, request.amount_credits, request.occurred_at]);
      };
      if (!executor.beforeCommit(spend)) await spend();
      return { charged: true };
    },
  };
}
