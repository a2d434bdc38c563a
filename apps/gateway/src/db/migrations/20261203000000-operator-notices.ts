import type { Knex } from 'knex';

/**
 * Operator notices (src/operator-notices): one row per installation or run approval that started
 * waiting for an operator, written in the transaction that created it. `mailed_at` is set when a mail
 * (the first one at once, later ones in a digest) listed it. The summary holds names and the
 * capability id and risk only, never params, tokens or codes.
 *
 * Also an index for the organization list (GET /admin/organizations, /admin/wallets): keyset paging
 * by (name, id).
 */
export const operatorNotices = {
  name: '20261203000000_operator_notices',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('operator_notices', (table) => {
      table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      table.text('kind').notNullable();
      table.uuid('subject_id').notNullable();
      table.text('summary').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable();
      table.timestamp('mailed_at', { useTz: true });
      table.unique(['kind', 'subject_id']);
      table.index(['mailed_at']);
    });
    await knex.raw(
      "alter table operator_notices add constraint operator_notices_kind_check check (kind in ('installation', 'approval'))",
    );
    await knex.raw(
      'create index operator_notices_unmailed on operator_notices (created_at) where mailed_at is null',
    );
    await knex.raw('create index organizations_name_id on organizations (name, id)');
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('drop index organizations_name_id');
    await knex.schema.dropTable('operator_notices');
  },
};
