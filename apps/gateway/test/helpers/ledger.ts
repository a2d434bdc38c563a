import type { Knex } from 'knex';
import { ROLLUP_LOCK_KEY } from '../../src/ports/wallet-rollup.js';
import { gate } from './gate.js';

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

/**
 * Holds the charge roll-up's lock (src/ports/wallet-rollup.ts) in a transaction of its own, as another
 * process's roll-up does, until `release`. PostgreSQL only: on PGlite that transaction would hold the one
 * session.
 */
export async function holdRollUpLock(knex: Knex): Promise<{ release: () => Promise<void> }> {
  const held = gate();
  const released = gate();
  const holder = knex.transaction(async (trx) => {
    await trx.raw(`select pg_advisory_xact_lock(${ROLLUP_LOCK_KEY})`);
    held.open();
    await released.opened;
  });
  await Promise.race([held.opened, holder]);
  return {
    release: async () => {
      released.open();
      await holder;
    },
  };
}
