import type { ApprovalRecord, ApprovalStore } from '@agw/guard';
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

/** The guard's ApprovalStore over the `approvals` table; `consume` is a compare-and-set. */
export function createKnexApprovalStore(executor: KnexExecutor): ApprovalStore {
  return {
    async create(approval) {
      const [row] = await executor.current()('approvals').insert(approval).returning(COLUMNS);
      return toRecord(row as ApprovalRow);
    },
    async findByTokenHash(tokenHash) {
      const row = await executor.current()('approvals').where({ token_hash: tokenHash }).first(COLUMNS);
      return row === undefined ? undefined : toRecord(row as ApprovalRow);
    },
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
