import type { Knex } from 'knex';
import { iso } from './rows.js';

/** An address the gateway will not mail: its one-time codes are reported as `suppressed`. */
export interface SuppressionView {
  readonly email: string;
  readonly reason: string;
  readonly created_by: string;
  readonly created_at: string;
}

interface SuppressionRow {
  email: string;
  reason: string;
  created_by: string;
  created_at: Date;
}

/** The reason stored when the operator gives none. */
export const DEFAULT_SUPPRESSION_REASON = 'operator';

/** Every suppressed address, newest first. */
export async function listSuppressions(knex: Knex): Promise<SuppressionView[]> {
  const rows = (await knex('mail_suppressions')
    .orderBy('created_at', 'desc')
    .orderBy('email')) as SuppressionRow[];
  return rows.map(toView);
}

/**
 * Suppresses an address (already normalized). Suppressing it again updates the reason and keeps the
 * original author and time; `created` says whether this call added it.
 */
export async function addSuppression(
  trx: Knex.Transaction,
  email: string,
  reason: string,
  createdBy: string,
): Promise<{ suppression: SuppressionView; created: boolean }> {
  // Insert-or-ignore first, so two concurrent adds of a new address cannot collide on the key.
  const inserted = await trx('mail_suppressions')
    .insert({ email, reason, created_by: createdBy })
    .onConflict('email')
    .ignore()
    .returning('email');
  if (inserted.length === 0) await trx('mail_suppressions').where({ email }).update({ reason });
  const row = (await trx('mail_suppressions').where({ email }).first()) as SuppressionRow;
  return { suppression: toView(row), created: inserted.length > 0 };
}

/** Removes an address from the list; false when it was not on it. */
export async function removeSuppression(trx: Knex.Transaction, email: string): Promise<boolean> {
  // RETURNING rather than the affected-row count, which not every driver (PGlite) reports.
  const removed = await trx('mail_suppressions').where({ email }).delete().returning('email');
  return removed.length > 0;
}

function toView(row: SuppressionRow): SuppressionView {
  return {
    email: row.email,
    reason: row.reason,
    created_by: row.created_by,
    created_at: iso(row.created_at),
  };
}
