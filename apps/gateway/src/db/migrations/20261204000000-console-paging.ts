import type { Knex } from 'knex';

/**
 * The console's mail and installations pages page by (created_at, id) (src/console/keyset.ts): with an
 * index on those columns a page after a cursor reads its rows from the index, so a late page costs what
 * the first does (the approvals queue and the organization list have theirs).
 */
export const consolePaging = {
  name: '20261204000000_console_paging',
  async up(knex: Knex): Promise<void> {
    await knex.raw('create index mail_outbox_created_at_id on mail_outbox (created_at, id)');
    await knex.raw('create index installations_created_at_id on installations (created_at, id)');
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('drop index installations_created_at_id');
    await knex.raw('drop index mail_outbox_created_at_id');
  },
};
