import type { Knex } from 'knex';

/**
 * Charges no longer update a row every run of the organization shares. An invoke's charge is one
 * `wallet_ledger` row marked `rolled_up = false`; a periodic roll-up (src/ports/wallet-rollup.ts) folds
 * those rows into `wallets.balance` and into spend per organization in UTC minute and day buckets
 * (`wallet_spend`), marking them rolled up, all in one statement. A snapshot reads the aggregates plus
 * the few rows not rolled up yet, so it is exact at every moment and reads at most 61 minute rows and 31
 * day rows however many charges there were (summing every charge of the month took 4 ms at 4 000).
 * Rows written before this migration, and credits, are already in the balance: `rolled_up` defaults to
 * true; their charges are backfilled into the buckets here.
 */
export const createWalletSpend = {
  name: '20261123040000_create_wallet_spend',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('wallet_spend', (table) => {
      table.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      table.text('bucket').notNullable().checkIn(['minute', 'day'], 'wallet_spend_bucket_check');
      table.timestamp('starts_at', { useTz: true }).notNullable();
      table.decimal('amount', 20, 6).notNullable();
      table.primary(['organization_id', 'bucket', 'starts_at']);
    });
    await knex.raw(`
      insert into wallet_spend (organization_id, bucket, starts_at, amount)
      select organization_id, b.bucket, date_trunc(b.bucket, occurred_at, 'UTC'), sum(amount)
      from wallet_ledger
      cross join (values ('minute'), ('day')) as b(bucket)
      where kind = 'charge' and (b.bucket = 'day' or occurred_at >= now() - interval '2 hours')
      group by 1, 2, 3`);
    await knex.schema.alterTable('wallet_ledger', (table) => {
      table.boolean('rolled_up').notNullable().defaultTo(true);
    });
    await knex.raw(
      'create index wallet_ledger_not_rolled_up on wallet_ledger (organization_id, occurred_at) include (amount) where not rolled_up',
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.alterTable('wallet_ledger', (table) => {
      table.dropIndex([], 'wallet_ledger_not_rolled_up');
      table.dropColumn('rolled_up');
    });
    await knex.schema.dropTable('wallet_spend');
  },
};
