import { randomUUID } from 'node:crypto';
import type { ApprovalRecord, ApprovalStore } from '../ports.js';

/** An in-memory {@link ApprovalStore} with the operator's side: list and decide. */
export interface MemoryApprovalStore extends ApprovalStore {
  /** The operator approves or denies a pending approval. */
  decide(approvalId: string, decision: 'approved' | 'denied'): void;
  list(): readonly ApprovalRecord[];
}

/** Creates an in-memory approval store. */
export function createMemoryApprovalStore(): MemoryApprovalStore {
  const records = new Map<string, ApprovalRecord>();
  return {
    create(approval) {
      const record: ApprovalRecord = {
        ...approval,
        approval_id: randomUUID(),
        status: 'pending',
        consumed_at: null,
      };
      records.set(record.approval_id, record);
      return record;
    },
    findByTokenHash: (tokenHash) => [...records.values()].find((record) => record.token_hash === tokenHash),
    consume(approvalId, consumedAt) {
      const record = records.get(approvalId);
      if (record === undefined || record.status !== 'approved' || record.consumed_at !== null) return false;
      records.set(approvalId, { ...record, consumed_at: consumedAt });
      return true;
    },
    decide(approvalId, decision) {
      const record = records.get(approvalId);
      if (record === undefined || record.status !== 'pending')
        throw new Error(`No pending approval ${approvalId}`);
      records.set(approvalId, { ...record, status: decision });
    },
    list: () => [...records.values()],
  };
}
