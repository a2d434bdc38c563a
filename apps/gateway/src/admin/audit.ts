import type { Knex } from 'knex';
import { knexTransaction } from '../db/knex-transaction.js';
import { auditRowId } from '../ports/audit-rows.js';
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
    id: auditRowId(entry.auditId),
    audit_id: entry.auditId,
    request_id: entry.requestId,
    actor: entry.operator.actor,
    action: entry.action,
    outcome: 'succeeded',
    http_status: entry.httpStatus,
    details: JSON.stringify({ ...entry.details, api_key_prefix: entry.operator.prefix }),
  });
}

/** An operator action to run with {@link runOperatorAction}: whose, which, and its answer's status. */
export interface OperatorAction<T> extends Omit<OperatorAuditEntry, 'httpStatus' | 'details'> {
  /** The status of the answer, when it depends on the result (e.g. 201 created, 200 already there). */
  readonly httpStatus: number | ((result: T) => number);
  /** Where the operator acted from, when not the admin API: the row's details say `via: 'console'`. */
  readonly via?: 'console';
}

/**
 * Runs `effect` in a transaction and writes its audit row ({@link recordOperatorAction}) in the same
 * transaction: the admin API's and the console's every action. Answers the result and the status.
 */
export function runOperatorAction<T>(
  knex: Knex,
  action: OperatorAction<T>,
  effect: (trx: Knex.Transaction) => Promise<{ result: T; details: Record<string, unknown> }>,
): Promise<{ result: T; httpStatus: number }> {
  return knexTransaction(knex, async (trx) => {
    const { result, details } = await effect(trx);
    const httpStatus =
      typeof action.httpStatus === 'function' ? action.httpStatus(result) : action.httpStatus;
    await recordOperatorAction(trx, {
      auditId: action.auditId,
      requestId: action.requestId,
      operator: action.operator,
      action: action.action,
      httpStatus,
      details: action.via === undefined ? details : { ...details, via: action.via },
    });
    return { result, httpStatus };
  });
}
