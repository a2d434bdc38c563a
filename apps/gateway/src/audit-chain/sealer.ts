import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import { createPeriodicTask, type PeriodicTask } from '../periodic.js';
import { chainHash, EVENT_COLUMNS_SQL, GENESIS_HASH, type StoredEvent, utcMicros } from './record.js';

/** How often each gateway process seals by default (AUDIT_SEAL_INTERVAL_MS). */
export const DEFAULT_SEAL_INTERVAL_MS = 1000;

// A batch cut at this size leaves the mark where it was, so the run's next batch reads every candidate
// again: at 500, a run sealing one second of read invokes (~1 650 rows) read the first rows four times;
// at 2 000 the sealer's read per read invoke went from 28–32 to 15–20 µs (docs/performance.md).
const BATCH_SIZE = 2000;
// One tick seals at most this many batches, so a large backlog cannot hold the connection for long;
// the next tick continues.
const MAX_BATCHES_PER_RUN = 20;

/**
 * Appends unsealed `audit_events` rows to `audit_chain`, in batches of 2 000, each batch in one transaction
 * holding a transaction-level advisory lock per schema. The lock is only tried: when another process is
 * sealing, this call returns at once and that process seals the rows. Requests never wait for it: they
 * insert their audit rows, and the sealer catches up within one interval. Returns how many rows this
 * call sealed.
 *
 * Which rows: those not visible in the snapshot the last complete batch sealed under
 * (`audit_seal_mark`), found by their writing transaction (`txid`: at or above that snapshot's xmax, or
 * one of the transactions it saw in progress), without a chain entry yet, in (txid, occurred_at, id)
 * order; once a batch takes them all, its snapshot becomes the mark
 * (src/db/migrations/20261202010000-audit-seal-snapshot.ts). Only after a batch cut at the limit can such
 * a row have a chain entry already, and only then is each candidate looked up in the chain. Rows written before the txid column existed are sealed first, from the queue that
 * held them then (`audit_unsealed`), oldest first.
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

/**
 * The last sealing snapshot's xmax and in-progress ids, as text: the parameters of
 * {@link unsealedAuditRows}. Read in a statement of their own: as parameters they let the planner use the
 * txid index (values from a subquery would not).
 */
export const SEAL_MARK_SQL = `select pg_snapshot_xmax(snapshot)::text as xmax,
       array(select pg_snapshot_xip(snapshot))::text as xip
  from audit_seal_mark`;

/**
 * The `audit_events e` rows the sealer has yet to chain, the sealer's own predicate (the metrics' backlog
 * gauges count with it too): not visible in the last sealing snapshot (`xmax`, `xip`: the SQL of its xmax
 * as `xid8` and its in-progress ids as `xid8[]`, e.g. parameters read with {@link SEAL_MARK_SQL}) and
 * without a chain entry (a batch cut at the limit leaves the mark where it was); each candidate probes
 * the chain's index (OFFSET 0 keeps the probe per row: a hash anti-join would read the whole chain).
 * Rows queued before the txid column existed are in {@link LEGACY_UNSEALED_SQL}.
 */
export function unsealedAuditRows(xmax: string, xip: string): string {
  return `${notInMark(xmax, xip)} and ${NOT_CHAINED}`;
}

/** `audit_events e` rows not visible in the sealing snapshot of `xmax` and `xip` (see {@link unsealedAuditRows}). */
function notInMark(xmax: string, xip: string): string {
  return `(e.txid >= ${xmax} or e.txid = any (${xip}))`;
}

const NOT_CHAINED = 'not exists (select 1 from audit_chain c where c.event_id = e.id offset 0)';

/** The rows queued before the txid column existed (`audit_events e`); the queue only drains now. */
export const LEGACY_UNSEALED_SQL = `audit_unsealed u join audit_events e on e.id = u.event_id
  where not exists (select 1 from audit_chain c where c.event_id = u.event_id)`;

// Whether the chain's newest entry is a row the mark does not see. Only a batch cut at its limit leaves
// one (a complete batch's snapshot, the next mark, sees every row it chained), and only then can a
// candidate have a chain entry already. An entry whose row has no txid (sealed from the old queue) or is
// gone counts as beyond the mark: the candidates are then looked up, as before.
const CUT_SQL = `select coalesce(not pg_visible_in_snapshot(e.txid, s.snapshot), true)
    from audit_chain c cross join audit_seal_mark s left join audit_events e on e.id = c.event_id
   order by c.seq desc limit 1`;

// The mark, and whether the last batch was cut, are read in the statement that takes the lock.
const LOCK_SQL = `select pg_try_advisory_xact_lock(hashtext('agw.audit_chain:' || current_schema())) as locked,
       ${utcMicros('now()')} as sealed_at, mark.xmax, mark.xip, coalesce((${CUT_SQL}), false) as cut
  from (select 1) as one left join (${SEAL_MARK_SQL}) as mark on true`;

const LEGACY_PENDING_SQL = `select ${EVENT_COLUMNS_SQL}
   from ${LEGACY_UNSEALED_SQL}
  order by e.occurred_at, e.id
  limit ?`;

// This statement's snapshot, and the rows it sees that the mark's did not (parameters: the mark's xmax
// and in-progress ids), looked up in the chain after a cut batch. Always one row: the snapshot. Alone
// (10 298 candidates), the lookup was 1.6 of the 2.7 µs a candidate cost (docs/performance.md).
const pendingSql = (afterCut: boolean) => `select pg_current_snapshot()::text as snapshot, e.*
    from (select 1) as one
    left join lateral (
      select ${EVENT_COLUMNS_SQL}
        from audit_events e
       where ${afterCut ? unsealedAuditRows('?::xid8', '?::xid8[]') : notInMark('?::xid8', '?::xid8[]')}
       order by e.txid, e.occurred_at, e.id
       limit ?) as e on true`;
const PENDING_SQL = pendingSql(false);
const PENDING_AFTER_CUT_SQL = pendingSql(true);

const MARK_SQL = 'update audit_seal_mark set snapshot = ?::pg_snapshot';

/** Seals one batch; -1 when another process holds the lock. */
async function sealBatch(trx: Knex.Transaction): Promise<number> {
  const lock = await trx.raw(LOCK_SQL);
  const {
    locked,
    sealed_at: sealedAt,
    xmax,
    xip,
    cut,
  } = lock.rows[0] as {
    locked: boolean;
    sealed_at: string;
    xmax: string;
    xip: string;
    cut: boolean;
  };
  if (!locked) return -1;
  const legacy = (await trx.raw(LEGACY_PENDING_SQL, [BATCH_SIZE])).rows as StoredEvent[];
  let fresh: StoredEvent[] = [];
  let snapshot: string | undefined;
  if (legacy.length < BATCH_SIZE) {
    const limit = BATCH_SIZE - legacy.length;
    const pending = cut ? PENDING_AFTER_CUT_SQL : PENDING_SQL;
    const rows = (await trx.raw(pending, [xmax, xip, limit])).rows as Array<
      StoredEvent & { snapshot: string }
    >;
    fresh = rows.filter((row) => row.id !== null);
    // Every row this snapshot sees is sealed once this batch commits: it is the next mark (moved only
    // when it chained something, so an idle gateway writes nothing).
    if (fresh.length > 0 && fresh.length < limit) snapshot = rows[0]?.snapshot;
  }
  const events = legacy.concat(fresh);
  if (snapshot !== undefined) await trx.raw(MARK_SQL, [snapshot]);
  if (events.length === 0) return 0;
  const head = (await trx('audit_chain').orderBy('seq', 'desc').first('seq', 'hash')) as
    | { seq: string | number; hash: string }
    | undefined;
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
  if (legacy.length > 0) {
    await trx('audit_unsealed')
      .whereIn(
        'event_id',
        legacy.map((event) => event.id),
      )
      .delete();
  }
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
