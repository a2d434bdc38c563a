import type { Knex } from 'knex';
import type { OperatorPrincipal } from './operator-auth.js';

/** One operator action, written to `audit_events` in the same transaction as its effect. */
export interface OperatorAuditEntry {
  readonly auditId: string;
  readonly requestId: string;
  readonly operator: OperatorPrincipal;
  /** e.g. `installation.approve`, `operator_key.create`. */
  readonly action: string;
  readonly httpStatus: number;
  /** What was acted on and how; never a secret (keys appear by prefix only). */
  readonly details: Readonly<Record<string, unknown>>;
}

/**
 * Inserts the audit row of a successful operator action. Called inside the action's transaction, so
 * the effect and its record commit or roll back together (security rules 6.2 rule 2); a failed
 * action is recorded by the error handler instead.
 */
export async function recordOperatorAction(trx: Knex.Transaction, entry: OperatorAuditEntry): Promise<void> {
  await trx('audit_events').insert({
    audit_id: entry.auditId,
    request_id: entry.requestId,
    actor: entry.operator.actor,
    action: entry.action,
    outcome: 'succeeded',
    http_status: entry.httpStatus,
    details: JSON.stringify({ ...entry.details, api_key_prefix: entry.operator.prefix }),
  });
}
