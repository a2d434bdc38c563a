import { randomUUID } from 'node:crypto';
import { errorCodes } from '@agw/contracts';
import type { AuditRecord, AuditSink } from '@agw/guard';
import { auditTransport } from '../audit.js';
import type { KnexExecutor } from './executor.js';

/** The HTTP status an outcome is answered with, for the `audit_events.http_status` column. */
function statusOf(record: AuditRecord): number {
  if (record.reason_code !== null) return errorCodes[record.reason_code].status;
  return record.outcome === 'failed' ? 500 : 200;
}

/**
 * The guard's AuditSink over `audit_events`: one row per decision and outcome, with a fresh audit id
 * (the response's `audit_id`). Inside an invoke's transaction the row commits with the result.
 */
export function createKnexAuditSink(executor: KnexExecutor): AuditSink {
  return {
    async append(record: AuditRecord): Promise<string> {
      const auditId = randomUUID();
      const { occurred_at, request_id, actor_type, actor_id, action, outcome, ...details } = record;
      await executor
        .current()('audit_events')
        .insert({
          audit_id: auditId,
          occurred_at,
          request_id: request_id ?? '',
          actor:
            actor_type === 'installation' && actor_id !== null ? `installation:${actor_id}` : 'anonymous',
          action,
          outcome,
          http_status: statusOf(record),
          details: JSON.stringify({ ...details, transport: auditTransport() }),
        });
      return auditId;
    },
  };
}
