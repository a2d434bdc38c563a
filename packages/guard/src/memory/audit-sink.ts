import { randomUUID } from 'node:crypto';
import type { AuditRecord, AuditSink } from '../ports.js';

/** An audit record as stored, with its id. */
export type StoredAuditRecord = AuditRecord & { readonly audit_id: string };

/** An in-memory append-only {@link AuditSink}. */
export interface MemoryAuditSink extends AuditSink {
  records(): readonly StoredAuditRecord[];
}

/** Creates an in-memory audit sink; ids are UUID v4. */
export function createMemoryAuditSink(): MemoryAuditSink {
  const stored: StoredAuditRecord[] = [];
  const append = (record: AuditRecord): string => {
    const audit_id = record.audit_id ?? randomUUID();
    stored.push(Object.freeze({ ...record, audit_id }));
    return audit_id;
  };
  return { append, records: () => [...stored] };
}
