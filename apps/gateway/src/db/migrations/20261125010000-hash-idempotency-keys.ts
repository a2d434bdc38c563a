import type { Knex } from 'knex';

/**
 * Idempotency keys are stored as their keyed hash from now on (src/idempotency/key-hash.ts). The hash
 * needs the server secret, which SQL does not have, so this migration only marks the rows written
 * before it (`key_hashed = false`: their `idem_key` is the client's key in clear); the gateway rehashes
 * them in JS at start (src/idempotency/legacy-keys.ts), so a retry across the upgrade still replays.
 * Rows written afterwards are hashed by construction: the column's default is true.
 */
export const hashIdempotencyKeys = {
  name: '20261125010000_hash_idempotency_keys',
  async up(knex: Knex): Promise<void> {
    await knex.raw('alter table idempotency_keys add column key_hashed boolean not null default false');
    await knex.raw('alter table idempotency_keys alter column key_hashed set default true');
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('alter table idempotency_keys drop column key_hashed');
  },
};
