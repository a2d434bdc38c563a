import type { Knex } from 'knex';

/**
 * The sealer's mark says whether chained rows lie beyond it (issue 31; src/audit-chain/sealer.ts).
 *
 * A row not visible in the mark's snapshot has a chain entry already only after a batch cut at its limit
 * (which chains rows but leaves the mark, its snapshot not covering the rows it did not take). Each
 * candidate row was looked up in the chain all the same: ~60 % of the sealer's reading. Now the mark is
 * `partial` from such a batch to the next complete one, and only then are candidates looked up. An
 * existing mark starts partial: the first batch after the upgrade looks every candidate up, as before
 * (rows chained under `20261202000000_audit_seal_by_transaction` lie beyond the initial mark).
 */
export const auditSealMarkPartial = {
  name: '20261210000000_audit_seal_mark_partial',
  async up(knex: Knex): Promise<void> {
    await knex.raw('alter table audit_seal_mark add column partial boolean not null default false');
    await knex.raw('update audit_seal_mark set partial = true');
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('alter table audit_seal_mark drop column partial');
  },
};
