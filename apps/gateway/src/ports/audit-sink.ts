import { randomUUID } from 'node:crypto';
import { errorCodes } from '@agw/contracts';
import type { AuditRecord, AuditSink } from '@agw/guard';
import type { Knex } from 'knex';
import { auditKeyHash } from '../idempotency/key-hash.js';
import { unitOf } from '../invoke/unit-of-work.js';
import { auditBatcherFor } from './audit-batcher.js';
import type { AuditRow } from './audit-rows.js';
import { encodeTrace } from './audit-trace.js';

/** The HTTP status an outcome is answered with, for the `audit_events.http_status` column. */
function statusOf(record: AuditRecord): number {
  if (record.reason_code !== null) return errorCodes[record.reason_code].status;
  return record.outcome === 'failed' ? 500 : 200;
}

/** The `audit_events` row of a record (its own id, or a fresh one). */
export function auditRowOf(record: AuditRecord): AuditRow {
  const {
    audit_id,
    occurred_at,
    request_id,
    actor_type,
    actor_id,
    action,
    outcome,
    idempotency_key,
    trace,
    ...rest
  } = record;
  // The gateway hands the chain the key's keyed hash (src/idempotency/key-hash.ts); the audit, which
  // operators read, keeps only a prefix of it for correlation.
  const details = {
    ...rest,
    trace: encodeTrace(trace),
    idempotency_key_hash: idempotency_key === null ? null : auditKeyHash(idempotency_key),
  };
  return {
    audit_id: audit_id ?? randomUUID(),
    occurred_at,
    request_id: request_id ?? '',
    actor: actor_type === 'installation' && actor_id !== null ? `installation:${actor_id}` : 'anonymous',
    action,
    outcome,
    http_status: statusOf(record),
    details: JSON.stringify({ ...details, transport: record.transport ?? 'http' }),
  };
}

/**
 * The guard's AuditSink over `audit_events`: one row per decision and outcome, with a fresh audit id
 * (the response's `audit_id`) unless the record brings one, written where the run's unit of work says
 * (src/invoke/unit-of-work.ts): in a transaction the rows commit with the result, written by the
 * transaction's last statement of the gateway's own, so they cost no round trip of their own; on the
 * pool (a refusal at admission, a read) they are group-committed with other requests' rows
 * (src/ports/audit-batcher.ts) and the call resolves once they are written. A mutating invoke's
 * transaction refuses them: it writes the chain's records itself (returnWrites).
 */
export function createKnexAuditSink(knex: Knex): AuditSink {
  const batcher = auditBatcherFor(knex);
  return {
    async append(record: AuditRecord, unit?: unknown): Promise<string> {
      const row = auditRowOf(record);
      const work = unitOf(unit);
      await (work === undefined ? batcher.write([row]) : work.writeAudit([row]));
      return row.audit_id;
    },
  };
}
