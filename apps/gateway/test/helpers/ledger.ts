import type { Knex } from 'knex';

/**
 * The idempotency scopes of `organizationId`'s charges the roll-up has not folded in yet: those not visible
 * in its wallet's `rolled_through` (src/ports/wallet-rollup.ts), in the order they were written.
 */
export async function unrolledCharges(knex: Knex, organizationId: string): Promise<string[]> {
  const result = (await knex.raw(
    `select l.idempotency_scope from wallet_ledger l
     left join wallets w on w.organization_id = l.organization_id
     where l.organization_id = ? and l.kind = 'charge'
       and not pg_visible_in_snapshot(l.txid, coalesce(w.rolled_through, '1:1:'))
     order by l.txid, l.occurred_at`,
    [organizationId],
  )) as { rows: Array<{ idempotency_scope: string }> };
  return result.rows.map((row) => row.idempotency_scope);
}
