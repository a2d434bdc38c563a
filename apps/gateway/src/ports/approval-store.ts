import type { ApprovalRecord, ApprovalStore, PendingApprovalMatch } from '@agw/guard';
import type { Knex } from 'knex';
import { toIso } from '../keys/key-store.js';
import type { KnexExecutor } from './executor.js';

interface ApprovalRow extends Omit<ApprovalRecord, 'created_at' | 'expires_at' | 'consumed_at'> {
  readonly created_at: Date | string;
  readonly expires_at: Date | string;
  readonly consumed_at: Date | string | null;
}

function toRecord(row: ApprovalRow): ApprovalRecord {
  return {
    approval_id: row.approval_id,
    token_hash: row.token_hash,
    status: row.status,
    organization_id: row.organization_id,
    installation_id: row.installation_id,
    capability_id: row.capability_id,
    capability_version: row.capability_version,
    params_hash: row.params_hash,
    reason: row.reason,
    created_at: toIso(row.created_at),
    expires_at: toIso(row.expires_at),
    consumed_at: row.consumed_at === null ? null : toIso(row.consumed_at),
  };
}

const COLUMNS = [
  'approval_id',
  'token_hash',
  'status',
  'organization_id',
  'installation_id',
  'capability_id',
  'capability_version',
  'params_hash',
  'reason',
  'created_at',
  'expires_at',
  'consumed_at',
];

/** Rebinds the newest still-pending, unexpired approval of `match` to `tokenHash`, in one statement. */
async function renew(
  db: Knex,
  match: PendingApprovalMatch,
  tokenHash: string,
  now: string,
): Promise<ApprovalRecord | undefined> {
  const pending = () =>
    db('approvals')
      .where({ ...match, status: 'pending' })
      .where('expires_at', '>', now);
  const [row] = await pending()
    .whereIn('approval_id', pending().select('approval_id').orderBy('created_at', 'desc').limit(1))
    .update({ token_hash: tokenHash })
    .returning(COLUMNS);
  return row === undefined ? undefined : toRecord(row as ApprovalRow);
}

/**
 * The guard's ApprovalStore over the `approvals` table; `consume` is a compare-and-set.
 *
 * Dedupe: `renewPending` rebinds a still-pending approval of the same run to a fresh token, and
 * `create` itself does the same check under a transaction-scoped advisory lock keyed by the run
 * (installation, capability, version, params hash), so two first invokes racing each other (also from
 * two gateway processes) end with one approval: the second waits for the lock, then renews the first.
 */
export function createKnexApprovalStore(executor: KnexExecutor): ApprovalStore {
  return {
    async create(approval) {
      const match = {
        installation_id: approval.installation_id,
        capability_id: approval.capability_id,
        capability_version: approval.capability_version,
        params_hash: approval.params_hash,
      };
      return executor.current().transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [
          `agw.approval:${match.installation_id}:${match.capability_id}:${match.capability_version}:${match.params_hash}`,
        ]);
        const renewed = await renew(trx, match, approval.token_hash, approval.created_at);
        if (renewed !== undefined) return renewed;
        const [row] = await trx('approvals').insert(approval).returning(COLUMNS);
        return toRecord(row as ApprovalRow);
      });
    },
    async findByTokenHash(tokenHash) {
      const row = await executor.current()('approvals').where({ token_hash: tokenHash }).first(COLUMNS);
      return row === undefined ? undefined : toRecord(row as ApprovalRow);
    },
    // The fast path without a lock: the update's row lock serializes two renewals (the later token wins).
    renewPending: (match, tokenHash, now) => renew(executor.current(), match, tokenHash, now),
    async consume(approvalId, consumedAt) {
      const updated = await executor
        .current()('approvals')
        .where({ approval_id: approvalId, status: 'approved' })
        .whereNull('consumed_at')
        .update({ consumed_at: consumedAt });
      return updated === 1;
    },
  };
}
