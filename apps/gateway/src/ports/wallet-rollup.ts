import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import { createPeriodicTask, type PeriodicTask } from '../periodic.js';

/** How often each gateway process rolls charges up by default. */
export const DEFAULT_ROLLUP_INTERVAL_MS = 1000;

const BATCH_SIZE = 1000;
// One run rolls up at most this many batches, so a backlog cannot hold a connection for long.
const MAX_BATCHES_PER_RUN = 20;

// One statement: marks up to BATCH_SIZE charges rolled up and adds them to the balances and to the minute
// and day spend buckets; prunes the minute buckets no window reads any more. Atomic, so a snapshot
// (src/ports/wallet-store.ts) counts each charge exactly once, before or after. Ordered by organization
// so two writers of the same aggregates cannot deadlock.
const ROLLUP_SQL = `
with taken as (
  update wallet_ledger set rolled_up = true
  where not rolled_up and id in (
    select id from wallet_ledger where not rolled_up order by occurred_at limit ? for update skip locked
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
    and bucket = 'minute' and starts_at < now() - interval '2 hours'
)
select count(*)::int as rolled from taken`;

/**
 * Folds the charges not rolled up yet into `wallets.balance` and `wallet_spend`, in batches; returns how
 * many. Invokes never wait for it: their charge is one ledger row, counted by every snapshot at once.
 *
 * @example
 * await rollUpCharges(gateway.knex); // e.g. before reading wallets.balance directly in a test
 */
export async function rollUpCharges(knex: Knex): Promise<number> {
  let rolled = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
    const result = (await knex.raw(ROLLUP_SQL, [BATCH_SIZE])) as { rows: Array<{ rolled: number }> };
    const count = result.rows[0]?.rolled ?? 0;
    rolled += count;
    if (count < BATCH_SIZE) break;
  }
  return rolled;
}

/** The periodic roll-up of one gateway process ({@link rollUpCharges} every interval). */
export function createChargeRollup(options: {
  readonly knex: Knex;
  readonly logger: Logger;
  readonly intervalMs?: number | undefined;
}): PeriodicTask {
  const { knex, logger } = options;
  return createPeriodicTask({
    intervalMs: options.intervalMs ?? DEFAULT_ROLLUP_INTERVAL_MS,
    logger,
    failure: 'charge roll-up failed',
    run: async () => {
      const rolled = await rollUpCharges(knex);
      if (rolled > 0) logger.debug({ rolled }, 'charges rolled up');
    },
  });
}
