import type { Knex } from 'knex';
import { chainHash, EVENT_COLUMNS_SQL, GENESIS_HASH, type StoredEvent, utcMicros } from './record.js';

/** Why a chain position does not verify. */
export type ChainFault =
  /** The audit row sealed at this seq was changed after sealing. */
  | 'hash_mismatch'
  /** This seq is absent: chain entries (and their rows) were deleted. */
  | 'missing_seq'
  /** The chain entry is there but its audit row was deleted. */
  | 'row_missing'
  /** The entry does not point at the hash of the entry before it (the chain was rewritten). */
  | 'prev_hash_mismatch'
  /** The anchor's seq is past the head (the tail was cut off) or its hash differs. */
  | 'anchor_mismatch';

/** A head recorded earlier (outside the database) to check the chain against. */
export interface ChainAnchor {
  readonly seq: number;
  readonly hash: string;
}

/** The outcome of {@link verifyAuditChain}. */
export interface ChainVerification {
  /** True when every sealed row verifies (and the anchor, when given, matches). */
  readonly ok: boolean;
  /** Entries in the chain. */
  readonly sealed: number;
  /** Audit rows the sealer has not reached yet (normally only those of the last second or so). */
  readonly unsealed: number;
  /** The last entry; record it elsewhere now and then, and pass it back as an anchor. */
  readonly head: ChainAnchor | null;
  /** The first position that does not verify; null when ok. */
  readonly first_bad: {
    readonly seq: number;
    readonly reason: ChainFault;
    readonly message: string;
    /** The audit row's id at that position, when it still exists. */
    readonly audit_id: string | null;
  } | null;
  readonly verified_at: string;
}

const PAGE = 1000;

interface ChainRow extends StoredEvent {
  readonly seq: string | number;
  readonly prev_hash: string;
  readonly hash: string;
  readonly sealed_at: string;
  /** Null when the audit row is gone (the left join found nothing). */
  readonly row_id: string | null;
}

const messages: Record<ChainFault, (seq: number) => string> = {
  hash_mismatch: (seq) => `the audit row sealed at seq ${seq} was changed after sealing`,
  missing_seq: (seq) => `seq ${seq} is missing: chain entries and their audit rows were deleted`,
  row_missing: (seq) => `the audit row sealed at seq ${seq} was deleted`,
  prev_hash_mismatch: (seq) => `seq ${seq} does not continue the chain before it: the chain was rewritten`,
  anchor_mismatch: (seq) =>
    `the chain does not hold the anchored head at seq ${seq}: it was cut or rewritten`,
};

/**
 * Recomputes the whole chain from seq 1 in one read-only, repeatable-read snapshot and reports the
 * first position that does not verify. With an anchor (a head recorded earlier), also checks that
 * the chain still holds that exact entry, which detects a cut-off or recomputed tail.
 */
export async function verifyAuditChain(knex: Knex, anchor?: ChainAnchor): Promise<ChainVerification> {
  return knex.transaction(
    async (trx) => {
      const verifiedAt = (await trx.raw(`select ${utcMicros('now()')} as now`)).rows[0].now as string;
      let expected = 1;
      let prevHash = GENESIS_HASH;
      let anchorSeen = false;
      let firstBad: ChainVerification['first_bad'] = null;
      scan: while (true) {
        const page = (await trx.raw(
          `select c.seq, c.prev_hash, c.hash, ${utcMicros('c.sealed_at')} as sealed_at,
                e.id as row_id, ${EVENT_COLUMNS_SQL}
           from audit_chain c left join audit_events e on e.id = c.event_id
          where c.seq >= ? order by c.seq limit ?`,
          [expected, PAGE],
        )) as { rows: ChainRow[] };
        for (const row of page.rows) {
          const seq = Number(row.seq);
          const reason = faultOf(row, expected, prevHash, anchor);
          if (reason !== null) {
            const at = reason === 'missing_seq' ? expected : seq;
            firstBad = fault(at, reason, reason === 'missing_seq' ? null : row.audit_id);
            break scan;
          }
          if (seq === anchor?.seq) anchorSeen = true;
          prevHash = row.hash;
          expected = seq + 1;
        }
        if (page.rows.length < PAGE) break;
      }
      if (firstBad === null && anchor !== undefined && !anchorSeen) {
        firstBad = fault(anchor.seq, 'anchor_mismatch', null);
      }
      const counts = (
        await trx.raw(
          `select (select count(*) from audit_chain) as sealed,
                (select count(*) from audit_events e
                  where not exists (select 1 from audit_chain c where c.event_id = e.id)) as unsealed`,
        )
      ).rows[0] as { sealed: string | number; unsealed: string | number };
      const head = (await trx('audit_chain').orderBy('seq', 'desc').first('seq', 'hash')) as
        | { seq: string | number; hash: string }
        | undefined;
      return {
        ok: firstBad === null,
        sealed: Number(counts.sealed),
        unsealed: Number(counts.unsealed),
        head: head ? { seq: Number(head.seq), hash: head.hash } : null,
        first_bad: firstBad,
        verified_at: verifiedAt,
      };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/** What is wrong at `row`, expected to be entry `expected` after `prevHash`; null when it verifies. */
function faultOf(row: ChainRow, expected: number, prevHash: string, anchor?: ChainAnchor): ChainFault | null {
  const seq = Number(row.seq);
  if (seq !== expected) return 'missing_seq';
  if (row.prev_hash !== prevHash) return 'prev_hash_mismatch';
  if (row.row_id === null) return 'row_missing';
  if (!hashMatches(row, seq)) return 'hash_mismatch';
  if (anchor !== undefined && seq === anchor.seq && row.hash !== anchor.hash) return 'anchor_mismatch';
  return null;
}

function fault(seq: number, reason: ChainFault, auditId: string | null): ChainVerification['first_bad'] {
  return { seq, reason, message: messages[reason](seq), audit_id: auditId };
}

function hashMatches(row: ChainRow, seq: number): boolean {
  try {
    return chainHash(row.prev_hash, seq, row.sealed_at, row) === row.hash;
  } catch {
    // details no longer canonical-JSON representable (e.g. 1e400): changed after sealing.
    return false;
  }
}
