import { AUDIT_COLUMNS, auditRowsSelect } from '../ports/audit-rows.js';
import { snapshotSelect } from '../ports/wallet-store.js';

// The statements of the idempotency store (src/idempotency/store.ts), named so PostgreSQL parses and
// plans each once per connection; $1-$3 are always the scope (tenant, principal, key hash).

const TABLE = 'idempotency_keys';
const SCOPE = 'scope_tenant = $1 AND scope_principal = $2 AND idem_key = $3';

export const CLAIM = {
  name: 'agw.idempotency.claim',
  text: `INSERT INTO ${TABLE} (scope_tenant, scope_principal, idem_key, fingerprint, state, locked_by,
                               lease_expires_at, expires_at)
         VALUES ($1, $2, $3, $4, 'in_progress', $5, now() + make_interval(secs => $6), now() + make_interval(secs => $7))
         ON CONFLICT (scope_tenant, scope_principal, idem_key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, state = 'in_progress', recovery_point = 'started',
               locked_by = EXCLUDED.locked_by, lease_expires_at = EXCLUDED.lease_expires_at,
               response_status = NULL, response_headers = NULL, response_body = NULL,
               response_encrypted = false, created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE ${TABLE}.expires_at <= now()
         RETURNING idem_key`,
};
export const TAKE_OVER = {
  name: 'agw.idempotency.take-over',
  text: `UPDATE ${TABLE} SET locked_by = $4, lease_expires_at = now() + make_interval(secs => $5)
          WHERE ${SCOPE} AND state = 'in_progress' AND lease_expires_at <= now()
          RETURNING idem_key`,
};
export const READ = {
  name: 'agw.idempotency.read',
  text: `SELECT fingerprint, state, locked_by, (lease_expires_at > now()) AS lease_live, response_status,
                response_headers, response_body, response_encrypted
           FROM ${TABLE} WHERE ${SCOPE} AND expires_at > now()`,
};
export const FENCE = {
  name: 'agw.idempotency.fence',
  text: `SELECT idem_key FROM ${TABLE} WHERE ${SCOPE} AND locked_by = $4 AND state = 'in_progress' FOR UPDATE`,
};
// The fence and the wallet snapshot billing is about to read, in one statement: the row lock is taken
// first (the CTE), and no row comes back when the claim was lost.
export const FENCE_SNAPSHOT = {
  name: 'agw.idempotency.fence-snapshot',
  text: `WITH fence AS (${FENCE.text})
         SELECT snapshot.* FROM fence CROSS JOIN (${snapshotSelect(5)}) AS snapshot`,
};
// The answer, the run's charge and every audit row of the transaction in one statement. The charge
// ($9–$13, all null for none) is written once per scope, the audit rows come as one JSON array ($14,
// src/ports/audit-rows.ts); if its scope was charged before — possible only
// for a key reused after its retention, or under another API key of the same installation — the UPDATE
// matches nothing and the caller rolls back: the answer never claims a charge that was not made. A
// data-modifying CTE runs whether or not the UPDATE matches (then the transaction rolls back).
const LEDGER_AND_AUDIT = `ledger AS (
           INSERT INTO wallet_ledger
             (organization_id, amount, kind, idempotency_scope, capability_id, occurred_at, rolled_up)
           SELECT $9::uuid, $10::numeric, 'charge', $11::text, $12::text, $13::timestamptz, false
            WHERE $11::text IS NOT NULL
           ON CONFLICT (idempotency_scope) DO NOTHING
           RETURNING id),
         audit AS (INSERT INTO ${AUDIT_COLUMNS} ${auditRowsSelect(14)})`;
const ANSWER = `UPDATE ${TABLE} SET state = 'completed', recovery_point = 'finished', locked_by = NULL,
                lease_expires_at = NULL, response_status = $5, response_headers = $6::jsonb,
                response_body = $7, response_encrypted = $8
          WHERE ${SCOPE} AND locked_by = $4 AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM ledger))`;
export const COMPLETE = { name: 'agw.idempotency.complete', text: `WITH ${LEDGER_AND_AUDIT} ${ANSWER}` };
/** What the statement below fails with when it stored nothing. */
const NOT_STORED = 'agw: idempotent answer not stored, rows: ';
// The same writes, for a caller that sends COMMIT behind it in the same batch: when no answer was stored
// the statement fails — a text that is no number cast to int, evaluated only for the row HAVING lets
// through — so PostgreSQL skips the COMMIT up to the batch's Sync and the caller rolls back.
export const COMPLETE_OR_FAIL = {
  name: 'agw.idempotency.complete-or-fail',
  text: `WITH ${LEDGER_AND_AUDIT}, answered AS (${ANSWER} RETURNING 1)
         SELECT ('${NOT_STORED}' || count(*))::int FROM answered HAVING count(*) <> 1`,
};
// The audit rows as one JSON array ($5).
export const DISCARD = {
  name: 'agw.idempotency.discard',
  text: `WITH audit AS (INSERT INTO ${AUDIT_COLUMNS} ${auditRowsSelect(5)})
         DELETE FROM ${TABLE} WHERE ${SCOPE} AND locked_by = $4`,
};
export const RELEASE = {
  name: 'agw.idempotency.release',
  text: `DELETE FROM ${TABLE} WHERE ${SCOPE} AND locked_by = $4 AND state = 'in_progress'
            AND recovery_point = 'started'`,
};

export const REAP = {
  name: 'agw.idempotency.reap',
  text: `DELETE FROM ${TABLE} WHERE ctid IN (SELECT ctid FROM ${TABLE} WHERE expires_at < now() LIMIT $1)`,
};

/** True for the error of the store's `answerAndCommit` that stored nothing. */
export function isNotStored(error: unknown): boolean {
  return error instanceof Error && error.message.includes(NOT_STORED);
}
