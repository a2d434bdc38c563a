import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { hashIdempotencyKey } from './key-hash.js';

const BATCH = 500;

/**
 * Rehashes the idempotency rows stored before keys were hashed (migration
 * 20261125010000_hash_idempotency_keys marks them `key_hashed = false`). Runs at start, after the
 * migrations, because the hash needs the server secret. Every update is guarded by the clear key and
 * the flag, so instances starting together do the work once between them. A row whose hashed twin
 * already exists (the key was used again after the upgrade) is deleted: the twin is the live record.
 * Returns how many rows were converted.
 */
export async function rehashLegacyIdempotencyKeys(
  knex: Knex,
  box: SecretBox,
  logger?: Logger,
): Promise<number> {
  let converted = 0;
  for (;;) {
    const rows: { scope_tenant: string; scope_principal: string; idem_key: string }[] = await knex(
      'idempotency_keys',
    )
      .where({ key_hashed: false })
      .limit(BATCH)
      .select('scope_tenant', 'scope_principal', 'idem_key');
    if (rows.length === 0) break;
    for (const row of rows) {
      const where = { ...row, key_hashed: false };
      const hashed = hashIdempotencyKey(box, row.idem_key);
      await knex.transaction(async (trx) => {
        const twin = await trx('idempotency_keys')
          .where({ scope_tenant: row.scope_tenant, scope_principal: row.scope_principal, idem_key: hashed })
          .first('idem_key');
        if (twin) await trx('idempotency_keys').where(where).delete();
        else await trx('idempotency_keys').where(where).update({ idem_key: hashed, key_hashed: true });
      });
      converted += 1;
    }
  }
  if (converted > 0) logger?.info({ converted }, 'rehashed idempotency keys stored in clear');
  return converted;
}
