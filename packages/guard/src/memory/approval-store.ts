import { randomUUID } from 'node:crypto';
import type { ApprovalRecord, ApprovalStore } from '../ports.js';

/** An in-memory {@link ApprovalStore} with the operator's side: list and decide. */
export interface MemoryApprovalStore extends ApprovalStore {
  /** The operator approves or denies a pending approval (repeating a decision is a no-op). */
  decide(approvalId: string, decision: 'approved' | 'denied'): void;
  list(): readonly ApprovalRecord[];
}

/** Creates an in-memory approval store. */
export function createMemoryApprovalStore(): MemoryApprovalStore {
  const records = new Map<string, ApprovalRecord>();
  return {
    create({ params: _params, ...approval }) {
      const record: ApprovalRecord = {
        ...approval,
        approval_id: randomUUID(),
        status: 'pending',
        consumed_at: null,
      };
      records.set(record.approval_id, record);
      return record;
    },
    renewPending(match, tokenHash, now) {
      const pending = [...records.values()].find(
        (record) =>
          record.status === 'pending' &&
          Date.parse(record.expires_at) > Date.parse(now) &&
          record.installation_id === match.installation_id &&
          record.capability_id === match.capability_id &&
          record.capability_version === match.capability_version &&
          record.params_hash === match.params_hash,
      );
      if (pending === undefined) return undefined;
      const renewed = { ...pending, token_hash: tokenHash };
      records.set(renewed.approval_id, renewed);
      return renewed;
    },
    findByTokenHash: (tokenHash) => [...records.values()].find((record) => record.token_hash === tokenHash),
    consume(approvalId, consumedAt) {
      const record = records.get(approvalId);
      if (record === undefined || record.status !== 'approved' || record.consumed_at !== null) return false;
      records.set(approvalId, { ...record, consumed_at: consumedAt });
      return true;
    },
    // Like the gateway's admin API: a state set (the same decision again changes nothing), final once
    // decided (the opposite decision throws).
    decide(approvalId, decision) {
      const record = records.get(approvalId);
      if (record === undefined) throw new Error(`No approval ${approvalId}`);
      if (record.status === decision) return;
      if (record.status !== 'pending') throw new Error(`Approval ${approvalId} was already ${record.status}`);
      records.set(approvalId, { ...record, status: decision });
    },
    list: () => [...records.values()],
  };
}
