import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import { createPeriodicTask, type PeriodicTask } from '../periodic.js';
import { snapshotWindows } from './wallet-store.js';

/** How often each gateway process rolls charges up by default, while there is nothing to roll up. */
export const DEFAULT_ROLLUP_INTERVAL_MS = 1000;
/**
 * How soon the next roll-up follows one that rolled charges up. Every wallet snapshot (each paid invoke's
 * fence) sums its organization's charges not rolled up yet, so their number is what a snapshot costs:
 * at 250 mutations a second, rolled up every second, the fence took 700–830 µs of PostgreSQL execution;
 * every 100 ms, 250–440 µs (docs/performance.md). Idle, the roll-up still runs once a second.
 */
const ROLLUP_BUSY_INTERVAL_MS = 100;

const BATCH_SIZE = 1000;
// One run rolls up at most this many batches, so a backlog cannot hold a connection for long.
const MAX_BATCHES_PER_RUN = 20;

// The first statement of a batch: marks up to BATCH_SIZE charges rolled up and adds them to the balances
// and to the minute and day spend buckets; prunes the minute buckets no window reads any more (older than
// an hour before the hour window starting at the second parameter). Taken in the order of the ledger's index, and ordered by
// organization so two writers of the same aggregates cannot deadlock. Returns the organizations it touched, comma-separated.
const ROLLUP_SQL = `
with taken as (
  update wallet_ledger set rolled_up = true
  where not rolled_up and idempotency_scope in (
    select idempotency_scope from wallet_ledger where not rolled_up
    order by organization_id, occurred_at limit ? for update skip locked
  )
  returning organization_id, amount, occurred_at
), balances as (
  insert into wallets (organization_id, balance)
  select organization_id, -sum(amount) from taken group by organization_id order by organization_id
  on conflict (organization_id)
  do update set balance = wallets.balance + excluded.balance, updated_at = now()
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
select count(*)::int as rolled, string_agg(distinct organization_id::text, ',') as organizations from taken`;

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
const LOCK_KEY = `hashtext('agw.charge_rollup:' || current_schema())`;
const WAIT_SQL = `select pg_advisory_xact_lock(${LOCK_KEY})`;
const TRY_SQL = `select pg_try_advisory_xact_lock(${LOCK_KEY}) as locked`;

/**
 * Folds the charges not rolled up yet into `wallets` (balance, running spend sums) and `wallet_spend`, in
 * batches of one transaction each, so a snapshot (src/ports/wallet-store.ts) counts each charge exactly
 * once, before or after; returns how many. Invokes never wait for it: their charge is one ledger row,
 * counted by every snapshot at once. Waits for a roll-up another process is running; with `skipIfBusy`
 * it returns 0 at once instead (the periodic roll-up: the other one is doing the work).
 *
 * @example
 * await rollUpCharges(gateway.knex); // e.g. before reading wallets.balance directly in a test
 */
export async function rollUpCharges(knex: Knex, options: { skipIfBusy?: boolean } = {}): Promise<number> {
  let rolled = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
    const count = await knex.transaction(async (trx) => {
      if (options.skipIfBusy !== true) await trx.raw(WAIT_SQL);
      else if ((await trx.raw(TRY_SQL)).rows[0]?.locked !== true) return 0;
      const windows = snapshotWindows(new Date());
      const result = (await trx.raw(ROLLUP_SQL, [BATCH_SIZE, windows[0]])) as {
        rows: Array<{ rolled: number; organizations: string | null }>;
      };
      const { rolled = 0, organizations = null } = result.rows[0] ?? {};
      if (organizations !== null) await trx.raw(RUNNING_SUMS_SQL, [...windows, `{${organizations}}`]);
      return rolled;
    });
    rolled += count;
    if (count < BATCH_SIZE) break;
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
