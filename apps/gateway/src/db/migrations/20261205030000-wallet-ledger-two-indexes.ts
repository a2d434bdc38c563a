import type { Knex } from 'knex';

/**
 * A charge is one `wallet_ledger` row written on every paid invoke, and the roll-up rewrites it once
 * (`rolled_up`, src/ports/wallet-rollup.ts): each index costs both. Four become two. The idempotency
 * scope, unique already and what a charge conflicts on, is the primary key (nothing looks a row up by
 * `id`, which keeps its random default). One index `(rolled_up, organization_id, occurred_at)` with the
 * amount serves what the partial "not rolled up" index and the `(organization_id, occurred_at)` index
 * served: the charges not rolled up yet of an organization (the snapshot) or of all (the roll-up) are a
 * range of it, and an organization's newest rows (the operator's listing) the newest of two ranges.
 */
export const walletLedgerTwoIndexes = {
  name: '20261205030000_wallet_ledger_two_indexes',
  async up(knex: Knex): Promise<void> {
    await knex.raw('alter table wallet_ledger drop constraint wallet_ledger_pkey');
    await knex.raw('alter table wallet_ledger drop constraint wallet_ledger_idempotency_scope_unique');
    await knex.raw(
      'alter table wallet_ledger add constraint wallet_ledger_pkey primary key (idempotency_scope)',
    );
    await knex.raw('drop index wallet_ledger_not_rolled_up');
    await knex.raw('drop index wallet_ledger_organization_id_occurred_at_index');
    await knex.raw(
      'create index wallet_ledger_rolled_up_organization on wallet_ledger (rolled_up, organization_id, occurred_at) include (amount)',
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('drop index wallet_ledger_rolled_up_organization');
    await knex.raw(
      'create index wallet_ledger_organization_id_occurred_at_index on wallet_ledger (organization_id, occurred_at)',
    );
    await knex.raw(
      'create index wallet_ledger_not_rolled_up on wallet_ledger (organization_id, occurred_at) include (amount) where not rolled_up',
    );
    await knex.raw('alter table wallet_ledger drop constraint wallet_ledger_pkey');
    await knex.raw(
      'alter table wallet_ledger add constraint wallet_ledger_idempotency_scope_unique unique (idempotency_scope)',
    );
    await knex.raw('alter table wallet_ledger add constraint wallet_ledger_pkey primary key (id)');
  },
};
