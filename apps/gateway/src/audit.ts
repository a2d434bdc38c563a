import type { Knex } from 'knex';
import { withTimeout } from './checks/with-timeout.js';
import type { Logger } from './logger.js';
import { auditBatcherFor } from './ports/audit-batcher.js';
import { auditRowId } from './ports/audit-rows.js';

/** One row of `audit_events`. */
export interface AuditEvent {
  readonly auditId: string;
  readonly requestId: string;
  /** Who acted: `anonymous` until authentication exists, later `installation:<id>` or `operator:<id>`. */
  readonly actor: string;
  /** What was attempted, e.g. `http.request`. */
  readonly action: string;
  /** `failed` for error responses; later `allowed`, `denied`, `succeeded`. */
  readonly outcome: string;
  readonly httpStatus: number;
  /** Non-secret context: error code, method, route. */
  readonly details: Readonly<Record<string, unknown>>;
  /** How the request arrived; `http` when not said. */
  readonly transport?: AuditTransport;
}

// The response waits for the insert so an audit_id is findable once the client has it, but never
// longer than this: a slow or dead database must not hold error responses.
const AUDIT_WRITE_TIMEOUT_MS = 2000;

/**
 * Inserts an audit row, on the pool through the group commit shared with the invoke chain (refusals and
 * replays are what a retry loop or an attacker multiplies). Never throws: a failed or timed-out insert
 * is logged at error level with the whole event, so the log still holds the record.
 */
export async function recordAuditEvent(knex: Knex, logger: Logger, event: AuditEvent): Promise<void> {
  const row = {
    audit_id: event.auditId,
    request_id: event.requestId,
    actor: event.actor,
    action: event.action,
    outcome: event.outcome,
    http_status: event.httpStatus,
    details: JSON.stringify({ ...event.details, transport: event.transport ?? 'http' }),
  };
  const pending = knex.isTransaction
    ? knex('audit_events').insert({ id: auditRowId(row.audit_id), ...row })
    : auditBatcherFor(knex).write([row]);
  const insert = Promise.resolve(pending).then(
    () => true,
    (error: unknown) => {
      logger.error({ err: error, audit_event: event }, 'audit insert failed');
      return true;
    },
  );
  const written = await withTimeout(insert, AUDIT_WRITE_TIMEOUT_MS, false);
  if (!written) logger.error({ audit_event: event }, 'audit insert timed out');
}

/** The transport a request came over, recorded as `details.transport` on its audit rows. */
export type AuditTransport = 'http' | 'mcp';
