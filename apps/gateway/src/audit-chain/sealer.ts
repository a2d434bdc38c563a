import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import { createPeriodicTask, type PeriodicTask } from '../periodic.js';
import { chainHash, EVENT_COLUMNS_SQL, GENESIS_HASH, type StoredEvent, utcMicros } from './record.js';

/** How often each gateway process seals by default (AUDIT_SEAL_INTERVAL_MS). */
export const DEFAULT_SEAL_INTERVAL_MS = 1000;

const BATCH_SIZE = 500;
// One tick seals at most this many batches, so a large backlog cannot hold the connection for long;
// the next tick continues.
const MAX_BATCHES_PER_RUN = 20;

/**
 * Appends unsealed `audit_events` rows to `audit_chain`, oldest first (occurred_at, then id), in
 * batches of 500, each batch in one transaction holding a transaction-level advisory lock per schema.
 * The lock is only tried: when another process is sealing, this call returns at once and that process
 * seals the rows. Requests never wait for it: they insert their audit rows as before, and the sealer
 * catches up within one interval. Returns how many rows this call sealed.
 *
 * @example
 * await sealAuditChain(gateway.knex); // e.g. before verifying in a test
 */
export async function sealAuditChain(knex: Knex): Promise<number> {
  let sealed = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
    const count = await knex.transaction((trx) => sealBatch(trx));
    sealed += Math.max(count, 0);
    if (count < BATCH_SIZE) break;
  }
  return sealed;
}

/** Seals one batch; -1 when another process holds the lock. */
async function sealBatch(trx: Knex.Transaction): Promise<number> {
  const lock = await trx.raw(
    `select pg_try_advisory_xact_lock(hashtext('agw.audit_chain:' || current_schema())) as locked,
            ${utcMicros('now()')} as sealed_at`,
  );
  const { locked, sealed_at: sealedAt } = lock.rows[0] as { locked: boolean; sealed_at: string };
  if (!locked) return -1;
  const head = (await trx('audit_chain').orderBy('seq', 'desc').first('seq', 'hash')) as
    | { seq: string | number; hash: string }
    | undefined;
  const pending = await trx.raw(
    `select ${EVENT_COLUMNS_SQL}
       from audit_unsealed u join audit_events e on e.id = u.event_id
      where not exists (select 1 from audit_chain c where c.event_id = u.event_id)
      order by e.occurred_at, e.id
      limit ?`,
    [BATCH_SIZE],
  );
  const events = pending.rows as StoredEvent[];
  if (events.length === 0) return 0;
  let seq = head === undefined ? 0 : Number(head.seq);
  let prevHash = head?.hash ?? GENESIS_HASH;
  const links = events.map((event) => {
    seq += 1;
    const hash = chainHash(prevHash, seq, sealedAt, event);
    const link = { seq, event_id: event.id, prev_hash: prevHash, hash, sealed_at: sealedAt };
    prevHash = hash;
    return link;
  });
  await trx('audit_chain').insert(links);
  await trx('audit_unsealed')
    .whereIn(
      'event_id',
      events.map((event) => event.id),
    )
    .delete();
  return events.length;
}

/** The periodic sealer of one gateway process: stopping seals what the last requests wrote. */
export type AuditSealer = PeriodicTask;

/** Options of {@link createAuditSealer}. */
export interface AuditSealerOptions {
  readonly knex: Knex;
  readonly logger: Logger;
  /** Pause between the end of one run and the start of the next (default 1000 ms). */
  readonly intervalMs?: number | undefined;
}

/**
 * A sealer that runs {@link sealAuditChain} on a timer. A failed run is logged and retried on the next
 * tick; unsealed rows simply wait, nothing is lost.
 */
export function createAuditSealer(options: AuditSealerOptions): AuditSealer {
  const { knex, logger } = options;
  return createPeriodicTask({
    intervalMs: options.intervalMs ?? DEFAULT_SEAL_INTERVAL_MS,
    logger,
    failure: 'audit sealing failed',
    run: async () => {
      const sealed = await sealAuditChain(knex);
      if (sealed > 0) logger.debug({ sealed }, 'audit rows sealed');
    },
  });
}
