import type { Knex } from 'knex';

/**
 * A wallet snapshot reads the organization's `wallets` row instead of summing its spend buckets (up to 61
 * minute and 31 day rows per invoke). The roll-up (src/ports/wallet-rollup.ts) keeps, in the same
 * transaction as the buckets, three running sums: `spent_hour` = the minute buckets starting at or after
 * `spend_hour_from`, `spent_day` and `spent_month` = the day buckets starting at or after `spend_day_from`
 * and `spend_month_from`. A snapshot whose windows start elsewhere (the minute or day moved on since the
 * last roll-up, or another clock) adds or subtracts the buckets between the two starts — none most of the
 * time. A row without sums yet starts at infinity: the sum of no bucket is 0, so the snapshot sums its
 * window's buckets as before, and nothing needs backfilling.
 */
export const walletRunningSpend = {
  name: '20261205020000_wallet_running_spend',
  async up(knex: Knex): Promise<void> {
    await knex.raw(`
      alter table wallets
        add column spend_hour_from timestamptz not null default 'infinity',
        add column spent_hour numeric(20, 6) not null default 0,
        add column spend_day_from timestamptz not null default 'infinity',
        add column spent_day numeric(20, 6) not null default 0,
        add column spend_month_from timestamptz not null default 'infinity',
        add column spent_month numeric(20, 6) not null default 0`);
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw(`
      alter table wallets
        drop column spend_hour_from, drop column spent_hour, drop column spend_day_from,
        drop column spent_day, drop column spend_month_from, drop column spent_month`);
  },
};
