import type { Sql } from '@agw/capabilities';
import { formatCredits, parseCredits, type WalletSnapshot, type WalletStore } from '@agw/guard';
import type { Knex } from 'knex';
import { sqlPoolOf } from '../db/pool.js';
import { sqlOfKnex } from '../db/sql-knex.js';
import { unitOf } from '../invoke/unit-of-work.js';

type Amount = string | number | null;

/** A numeric column as a canonical credit string (`'10.500000'` → `'10.5'`). */
export function credits(value: Amount): string {
  if (value === null) return '0';
  return formatCredits(parseCredits(typeof value === 'number' ? value.toFixed(6) : value));
}

function cap(value: Amount): string | null {
  return value === null ? null : credits(value);
}

export interface SnapshotRow {
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

/**
 * A mark whose in-progress ids span more transaction ids than this — a transaction left open while others
 * committed — is read id by id ({@link ledgerRowsNotIn}).
 */
const WIDE_MARK = 1000;

/**
 * The `wallet_ledger` rows matching `where` that were not visible in the snapshot `mark` (a roll-up's:
 * not rolled up under it) and lie below `below` (an xid8, at least the mark's xmax), with the columns
 * `columns`: the index range from the mark's xmax, and the rows of the transactions in progress when it
 * was taken. Those lie between its xmin and xmax: one more range, the rows the mark saw skipped, while
 * it spans at most {@link WIDE_MARK} transaction ids; past that — a transaction left open, in any
 * database (transaction ids are server-wide), while others committed: the range would hold every entry
 * since, 1.7 ms per snapshot with one open through a 10 s run — one index lookup per in-progress id (a
 * one-time filter picks which; `offset 0` keeps the lookup a lookup: flattened, a generic plan read every
 * row of the organization and joined). Not one OR ("at or past xmax, or in progress"): PostgreSQL applied
 * that as a filter to every row of the organization. `below` filters nothing when it is this
 * statement's snapshot's xmax (the default: every row the statement sees is below it); it makes the range
 * one with both ends unknown when planning, which PostgreSQL estimates at 0.5 % of the rows — one end
 * alone it estimates at a third, and with one organization that was a sequential scan of the whole
 * ledger on every paid invoke.
 */
export function ledgerRowsNotIn(
  mark: string,
  columns: string,
  where: string,
  below = 'pg_snapshot_xmax(pg_current_snapshot())',
): string {
  const [xmin, xmax] = [`pg_snapshot_xmin(${mark})`, `pg_snapshot_xmax(${mark})`];
  const width = `${xmax}::text::bigint - ${xmin}::text::bigint`;
  return `(select ${columns} from wallet_ledger
  where ${where} and txid >= ${xmax} and txid < ${below}
  union all
  select ${columns} from wallet_ledger
  where ${where} and txid >= ${xmin} and txid < ${xmax}
    and not pg_visible_in_snapshot(txid, ${mark}) and ${width} <= ${WIDE_MARK}
  union all
  select in_progress.* from pg_snapshot_xip(${mark}) as xip(id)
  cross join lateral (select ${columns} from wallet_ledger where ${where} and txid = xip.id offset 0) as in_progress
  where ${width} > ${WIDE_MARK})`;
}

// Both tables are keyed by organization_id, so the joins yield exactly one row. Balance and spend are the
// rolled-up aggregates on the `wallets` row (its balance and running sums, kept by the roll-up,
// src/ports/wallet-rollup.ts) plus the charges not rolled up yet: those not visible in the row's
// `rolled_through` (the snapshot of the last roll-up that folded some in; with no `wallets` row none is
// rolled up). A running sum counts the buckets from its own start (`spend_*_from`, the roll-up's
// windows); when the snapshot's window starts elsewhere — the minute or day moved on since, or another
// gateway's clock — the buckets between the two starts are added or taken away ({@link bucketsBetween}),
// so the figures equal the sums over the buckets at every moment.
// One statement sees one MVCC snapshot, so a roll-up committing meanwhile is counted either before or
// after, never twice. Parameters from `$first`: the organization, then the starts of the hour, day and
// month windows ({@link snapshotWindows}), so the idempotent invoke can read it in its hold's statement
// (src/idempotency/store.ts). With `organization` (an SQL expression, e.g. a lateral join's column) the
// window parameters start at `$first`.
export function snapshotSelect(first: number, organization?: string): string {
  const windows = organization === undefined ? first + 1 : first;
  const org = organization ?? `$${first}`;
  const [hour, day, month] = [0, 1, 2].map((offset) => `$${windows + offset}::timestamptz`) as [
    string,
    string,
    string,
  ];
  return `
select coalesce(w.balance, 0) - u.total as balance, p.organization_id is not null as has_policy,
       p.task_cap, p.daily_cap, p.monthly_cap, p.burn_rate_hourly_cap, p.kill_switch,
       coalesce(w.spent_hour, 0) + ${bucketsBetween(org, 'minute', 'w.spend_hour_from', hour)} + u.hour as hour,
       coalesce(w.spent_day, 0) + ${bucketsBetween(org, 'day', 'w.spend_day_from', day)} + u.today as today,
       coalesce(w.spent_month, 0) + ${bucketsBetween(org, 'day', 'w.spend_month_from', month)} + u.month as month
from (select 1) as one
left join wallets w on w.organization_id = ${org}
left join policy_profiles p on p.organization_id = ${org}
cross join lateral (
  select coalesce(sum(amount), 0) as total,
         coalesce(sum(amount) filter (where occurred_at >= ${hour}), 0) as hour,
         coalesce(sum(amount) filter (where occurred_at >= ${day}), 0) as today,
         coalesce(sum(amount) filter (where occurred_at >= ${month}), 0) as month
  from ${ledgerRowsNotIn(
    "coalesce(w.rolled_through, '1:1:')",
    'amount, occurred_at',
    `organization_id = ${org} and kind = 'charge'`,
  )} as unrolled
) as u`;
}

/**
 * What turns a running sum from `from` (a `wallets` column; no row or no sum yet is infinity: the sum of no
 * bucket) into the sum from `start`: plus the `bucket` rows in [start, from), minus those in [from, start).
 * Read only when the two starts differ.
 */
function bucketsBetween(org: string, bucket: 'minute' | 'day', from: string, start: string): string {
  const since = `coalesce(${from}, 'infinity')`;
  return `(case when ${since} = ${start} then 0 else
    (case when ${start} < ${since} then 1 else -1 end) * (
      select coalesce(sum(amount), 0) from wallet_spend
      where organization_id = ${org} and bucket = '${bucket}'
        and starts_at >= least(${start}, ${since}) and starts_at < greatest(${start}, ${since})) end)`;
}

const SNAPSHOT_SQL = snapshotSelect(1);

/** The starts of the spend windows at `now`: the minute bucket holding the instant 60 minutes ago, the UTC day, the UTC month. */
export function snapshotWindows(now: Date): [Date, Date, Date] {
  return [
    new Date(Math.floor((now.getTime() - 3_600_000) / 60_000) * 60_000),
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())),
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
  ];
}

// The burn-rate hour's spend per UTC minute, oldest first: the rolled-up minute buckets and the charges
// not rolled up yet, from the window's start ($2, {@link snapshotWindows}).
const HOUR_SPEND_SQL = `
select minute, sum(amount) as amount from (
  select starts_at as minute, amount from wallet_spend
  where organization_id = $1 and bucket = 'minute' and starts_at >= $2
  union all
  select date_trunc('minute', unrolled.occurred_at, 'UTC'), unrolled.amount
  from (select coalesce((select rolled_through from wallets where organization_id = $1), '1:1:') as mark) as m
  cross join lateral ${ledgerRowsNotIn(
    'm.mark',
    'amount, occurred_at',
    `organization_id = $1 and kind = 'charge' and occurred_at >= $2`,
  )} as unrolled
) as spend
group by minute
order by minute`;

/** A charge of minute m counts while the hour window starts at or before m: until m + 61 minutes. */
const MINUTE_LEAVES_WINDOW_MS = 3_660_000;

/**
 * When at least `amount` credits of the burn-rate hour's spend at `now` has left the window (whole UTC minutes,
 * as {@link snapshotWindows} counts it), or null when the window holds less.
 */
async function readHourSpendReleasedAt(
  db: Sql,
  organizationId: string,
  now: Date,
  amount: string,
): Promise<Date | null> {
  const [hourStart] = snapshotWindows(now);
  const result = await db.query<{ minute: Date | string; amount: Amount }>(HOUR_SPEND_SQL, [
    organizationId,
    hourStart,
  ]);
  const needed = parseCredits(amount);
  let released = 0n;
  for (const row of result.rows) {
    released += parseCredits(credits(row.amount));
    if (released >= needed) return new Date(new Date(row.minute).getTime() + MINUTE_LEAVES_WINDOW_MS);
  }
  return null;
}

// A charge is its ledger row and nothing else: no row another run of the organization writes, so it
// locks nothing another request waits for. A second charge of the same scope inserts nothing.
const CHARGE_SQL = `
insert into wallet_ledger
  (organization_id, amount, kind, idempotency_scope, capability_id, occurred_at)
values ($1, $2, 'charge', $3, $4, $5)
on conflict (idempotency_scope) do nothing
returning id`;

/**
 * Balance, policy and spend windows of an organization in one round trip on `db` (the SQL port, or a
 * knex pool or transaction for the admin routes and tests), as the named statement `agw.wallet.snapshot`.
 */
export async function readWalletSnapshot(
  db: Sql | Knex | Knex.Transaction,
  organizationId: string,
  now: Date,
): Promise<WalletSnapshot> {
  // One round trip (the hot path reads this on every invoke): balance, policy and the spend sums.
  const result = await sqlOf(db).query<SnapshotRow>(SNAPSHOT_SQL, [organizationId, ...snapshotWindows(now)], {
    name: 'agw.wallet.snapshot',
  });
  return snapshotOfRow(organizationId, result.rows[0] as SnapshotRow);
}

/** The snapshot of `organizationId` from a row of {@link snapshotSelect}. */
export function snapshotOfRow(organizationId: string, row: SnapshotRow): WalletSnapshot {
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

function sqlOf(db: Sql | Knex | Knex.Transaction): Sql {
  return typeof db === 'function' ? sqlOfKnex(db) : db;
}

/**
 * The guard's WalletStore over PostgreSQL, reading and charging in the run's unit of work
 * (src/invoke/unit-of-work.ts). An organization without a `wallets` row has balance 0;
 * without a `policy_profiles` row it has no caps and the kill switch off (policy_profile_id null).
 * Spend windows: the last 60 minutes (burn rate; whole UTC minutes, so a charge up to 59 s older still
 * counts: a cap errs on the side of refusing), the current UTC day and the current UTC month.
 */
export function createKnexWalletStore(knex: Knex): WalletStore {
  // Without a unit of work (the admission's guards): the pool, one statement per checkout.
  const pool = sqlPoolOf(knex);
  return {
    getSnapshot(organizationId, now, unit) {
      const work = unitOf(unit);
      // The idempotent invoke read it with its key's hold, in the same transaction
      // (src/idempotency/run-sql.ts).
      return work?.takeSnapshot(organizationId) ?? readWalletSnapshot(work?.sql ?? pool, organizationId, now);
    },
    hourSpendReleasedAt(organizationId, now, amount, unit) {
      // Only a refused burn-rate cap asks: a cold path, one statement.
      return readHourSpendReleasedAt(unitOf(unit)?.sql ?? pool, organizationId, now, amount);
    },
    async charge(request, unit) {
      // Rolled into the balance and the spend buckets later; snapshots count it from the moment it commits.
      const inserted = await (unitOf(unit)?.writeSql() ?? pool).query(
        CHARGE_SQL,
        [
          request.organization_id,
          request.amount_credits,
          request.idempotency_scope,
          request.capability_id,
          request.occurred_at,
        ],
        { name: 'agw.wallet.charge' },
      );
      return { charged: inserted.rows.length > 0 };
    },
  };
}
