import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import { createPeriodicTask, type PeriodicTask } from '../periodic.js';
import { ledgerRowsNotIn, snapshotWindows } from './wallet-store.js';

/** How often each gateway process rolls charges up by default, while there is nothing to roll up. */
export const DEFAULT_ROLLUP_INTERVAL_MS = 1000;
/**
 * How soon the next roll-up follows one that rolled charges up. Every wallet snapshot (each paid invoke's
 * fence) sums its organization's charges not rolled up yet, so their number is what a snapshot costs:
 * at 250 mutations a second, rolled up every second, the fence took 700–830 µs of PostgreSQL execution;
 * every 100 ms, 250–440 µs; at ~900 a second, every 100 ms, ~80 µs, every 50 ms (on its own connection,
 * src/db/knex.ts `maintenance`) ~65 µs, for 2–4 µs more of the roll-up's own (docs/performance.md).
 * Idle, the roll-up still runs once a second.
 */
const ROLLUP_BUSY_INTERVAL_MS = 50;

const BATCH_SIZE = 1000;
// One run rolls up at most this many batches, so a backlog cannot hold a connection for long.
const MAX_BATCHES_PER_RUN = 20;

// The snapshot `snapshot` with only the transactions below `xmax` (an xid8 at most its xmax) visible.
const CAPPED = (snapshot: string, xmax: string) => `format('%s:%s:%s',
    least(pg_snapshot_xmin(${snapshot}), ${xmax}), ${xmax},
    array_to_string(array(select x from pg_snapshot_xip(${snapshot}) as x where x < ${xmax} order by x), ','))::pg_snapshot`;

// The roll-up index's predicate (rows from before the roll-up went by transaction have txid 0, rolled up).
const NOT_LEGACY = `txid <> '0'`;

// The first statement of a batch. It folds in the ledger rows it sees that the mark
// (`wallet_rollup_mark`, the snapshot the last batch rolled up under) did not ({@link ledgerRowsNotIn}), and
// its own snapshot becomes the mark: a charge is rolled up by the first roll-up that sees it committed, and
// a transaction still running delays only its own rows. With more than BATCH_SIZE such rows it takes the
// transactions of the first BATCH_SIZE (by transaction id, each whole) — the snapshot capped at the next
// transaction id, and never below the mark's xmax, so every row the mark saw stays rolled up. It adds the
// charges to the balances and to the minute and day spend buckets; moves the mark, when it found any row,
// and the `rolled_through` of each organization it touched (a credit only moves the mark: it went into the
// balance when written); and prunes the minute buckets no window reads any more (older than an hour before
// the hour window starting at the second parameter). Writes are ordered by organization so two writers of
// the same aggregates cannot deadlock. Returns how many charges it folded in, the organizations,
// comma-separated, and whether it stopped short of its snapshot.
const ROLLUP_SQL = `
with mark as (
  select rolled_through as mark, pg_current_snapshot() as now from wallet_rollup_mark
), cap as (
  -- With BATCH_SIZE rows or more, where the batch ends: the transaction id after the BATCH_SIZE-th row's.
  select (
    select greatest((l.txid::text::bigint + 1)::text::xid8, pg_snapshot_xmax(mark.mark))
    from ${ledgerRowsNotIn('mark.mark', 'txid', NOT_LEGACY)} as l
    order by l.txid offset ? limit 1
  ) as txid
  from mark
), bounds as (
  select mark.mark as from_mark,
         case when cap.txid is null then mark.now else ${CAPPED('mark.now', 'cap.txid')} end as to_mark
  from mark, cap
), rows as (
  -- Rows this statement sees below the new mark's xmax are visible in it.
  select l.organization_id, l.kind, l.amount, l.occurred_at
  from bounds cross join lateral ${ledgerRowsNotIn(
    'bounds.from_mark',
    'organization_id, kind, amount, occurred_at',
    NOT_LEGACY,
    'pg_snapshot_xmax(bounds.to_mark)',
  )} as l
), taken as (
  select organization_id, amount, occurred_at from rows where kind = 'charge'
), moved as (
  -- Only past rows: with none in the range the mark may stay, and an idle roll-up writes nothing.
  update wallet_rollup_mark set rolled_through = bounds.to_mark from bounds where exists (select from rows)
), balances as (
  insert into wallets (organization_id, balance, rolled_through)
  select organization_id, -coalesce(sum(amount) filter (where kind = 'charge'), 0), (select to_mark from bounds)
  from rows group by organization_id order by organization_id
  on conflict (organization_id)
  do update set balance = wallets.balance + excluded.balance, rolled_through = excluded.rolled_through,
                updated_at = now()
), spend as (
  insert into wallet_spend (organization_id, bucket, starts_at, amount)
  select organization_id, b.bucket, date_trunc(b.bucket, occurred_at, 'UTC') as starts_at, sum(amount)
  from taken cross join (values ('minute'), ('day')) as b(bucket)
  group by 1, 2, 3
  order by 1, 2, 3
  on conflict (organization_id, bucket, starts_at)
  do update set amount = wallet_spend.amount + excluded.amount
), pruned as (
  delete from wallet_spend
  where organization_id in (select organization_id from taken)
    and bucket = 'minute' and starts_at < ?::timestamptz - interval '1 hour'
)
select (select count(*)::int from taken) as rolled,
       (select string_agg(distinct organization_id::text, ',') from taken) as organizations,
       (select txid is not null from cap) as cut_short`;

// The second statement, in the same transaction: the running sums of the organizations just rolled up
// (the last parameter, a uuid array literal), counted again from their buckets (the first statement's
// writes and every roll-up committed before it included) for the windows starting at the first three
// parameters (the hour, day and month of {@link snapshotWindows}). The first statement holds their
// `wallets` rows, so no other roll-up changes them in between.
const RUNNING_SUMS_SQL = `
with windows as (select ?::timestamptz as hour, ?::timestamptz as day, ?::timestamptz as month)
update wallets w set
  spend_hour_from = windows.hour, spend_day_from = windows.day, spend_month_from = windows.month,
  spent_hour = s.hour, spent_day = s.today, spent_month = s.month
from windows
cross join unnest(?::uuid[]) as o(organization_id)
cross join lateral (
  select coalesce(sum(amount) filter (where bucket = 'minute' and starts_at >= windows.hour), 0) as hour,
         coalesce(sum(amount) filter (where bucket = 'day' and starts_at >= windows.day), 0) as today,
         coalesce(sum(amount) filter (where bucket = 'day' and starts_at >= windows.month), 0) as month
  from wallet_spend
  where organization_id = o.organization_id
    and ((bucket = 'minute' and starts_at >= windows.hour)
      or (bucket = 'day' and starts_at >= least(windows.day, windows.month)))
) as s
where w.organization_id = o.organization_id`;

// One roll-up at a time per database (and schema: the tests' gateways each have their own). Two at once
// update the same organizations' `wallets` rows and buckets, and the second waits for the first's COMMIT:
// three gateways rolling up every 100 ms spent ~17 ms a run waiting so, 1.7 ms of PostgreSQL execution
// per mutation. The periodic roll-up skips its turn while another runs; a direct call waits for it.
/** The roll-up's advisory lock key, as SQL (a test holds it as another process's roll-up would). */
export const ROLLUP_LOCK_KEY = `hashtext('agw.charge_rollup:' || current_schema())`;
// The same statement switches JIT compilation off for the transaction: the planner cannot know how many
// ledger rows lie past the mark, its estimate crossed jit_above_cost, and compiling the batch's
// expressions took 28 ms of a 50 ms roll-up that reads a thousand rows.
const NO_JIT = `set_config('jit', 'off', true)`;
const WAIT_SQL = `select ${NO_JIT}, pg_advisory_xact_lock(${ROLLUP_LOCK_KEY})`;
const TRY_SQL = `select ${NO_JIT}, pg_try_advisory_xact_lock(${ROLLUP_LOCK_KEY}) as locked`;

/** One batch in its own transaction; undefined when another roll-up holds the lock and `skipIfBusy`. */
async function rollUpBatch(
  knex: Knex,
  skipIfBusy: boolean,
): Promise<{ rolled: number; cutShort: boolean } | undefined> {
  return knex.transaction(async (trx) => {
    if (!skipIfBusy) await trx.raw(WAIT_SQL);
    else if ((await trx.raw(TRY_SQL)).rows[0]?.locked !== true) return undefined;
    const windows = snapshotWindows(new Date());
    const result = (await trx.raw(ROLLUP_SQL, [BATCH_SIZE - 1, windows[0]])) as {
      rows: Array<{ rolled: number; organizations: string | null; cut_short: boolean }>;
    };
    const row = result.rows[0];
    if (row === undefined) throw new Error('The charge roll-up returned no row.');
    if (row.organizations !== null) await trx.raw(RUNNING_SUMS_SQL, [...windows, `{${row.organizations}}`]);
    return { rolled: row.rolled, cutShort: row.cut_short };
  });
}

/**
 * Folds the charges not rolled up yet into `wallets` (balance, running spend sums) and `wallet_spend`, in
 * batches of one transaction each, so a snapshot (src/ports/wallet-store.ts) counts each charge exactly
 * once, before or after; returns how many. Invokes never wait for it: their charge is one ledger row,
 * counted by every snapshot at once. Waits for a roll-up another process is running, so every charge
 * committed before the call is rolled up when it returns (unless a backlog of more than 20 batches is
 * left for the next call). With `skipIfBusy` (the periodic roll-up) it returns 0 at once when another
 * one runs.
 *
 * @example
 * await rollUpCharges(gateway.knex); // e.g. before reading wallets.balance directly in a test
 */
export async function rollUpCharges(knex: Knex, options: { skipIfBusy?: boolean } = {}): Promise<number> {
  let rolled = 0;
  for (let batches = 0; batches < MAX_BATCHES_PER_RUN; batches += 1) {
    const batch = await rollUpBatch(knex, options.skipIfBusy === true);
    if (batch === undefined) break;
    rolled += batch.rolled;
    if (!batch.cutShort) break;
  }
  return rolled;
}

/**
 * The periodic roll-up of one gateway process: {@link rollUpCharges} every `intervalMs` while idle, every
 * {@link ROLLUP_BUSY_INTERVAL_MS} (at most `intervalMs`) after a run that found charges.
 */
export function createChargeRollup(options: {
  readonly knex: Knex;
  readonly logger: Logger;
  readonly intervalMs?: number | undefined;
}): PeriodicTask {
  const { knex, logger } = options;
  const intervalMs = options.intervalMs ?? DEFAULT_ROLLUP_INTERVAL_MS;
  return createPeriodicTask({
    intervalMs,
    busyIntervalMs: Math.min(ROLLUP_BUSY_INTERVAL_MS, intervalMs),
    logger,
    failure: 'charge roll-up failed',
    run: async () => {
      const rolled = await rollUpCharges(knex, { skipIfBusy: true });
      if (rolled > 0) logger.debug({ rolled }, 'charges rolled up');
      return rolled > 0;
    },
  });
}
