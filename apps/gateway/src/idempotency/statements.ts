import type { NamedBatchStatement } from '../db/pool.js';
import { AUDIT_COLUMNS, auditRowSelect, auditRowsSelect } from '../ports/audit-rows.js';
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
// The answer, the run's charge and every audit row of the transaction in one statement. The charge
// ($9–$13, all null for none) is written once per scope, the audit rows come as one JSON array ($14,
// src/ports/audit-rows.ts) or, in STORE_ONE_OR_FAIL, as one row's columns; if its scope was charged
// before — possible only for a key reused after its retention, or under another API key of the same
// installation — the answer's UPDATE (or STORE's INSERT, below) writes nothing and the caller rolls back:
// the answer never claims a charge that was not made. A data-modifying CTE runs whether or not the
// answer is written (then the transaction rolls back).
const ledgerAndAudit = (audit: string) => `ledger AS (
           INSERT INTO wallet_ledger
             (organization_id, amount, kind, idempotency_scope, capability_id, occurred_at)
           SELECT $9::uuid, $10::numeric, 'charge', $11::text, $12::text, $13::timestamptz
            WHERE $11::text IS NOT NULL
           ON CONFLICT (idempotency_scope) DO NOTHING
           RETURNING id),
         audit AS (INSERT INTO ${AUDIT_COLUMNS} ${audit})`;
const LEDGER_AND_AUDIT = ledgerAndAudit(auditRowsSelect(14));
const ANSWER = `UPDATE ${TABLE} SET state = 'completed', recovery_point = 'finished', locked_by = NULL,
                lease_expires_at = NULL, response_status = $5, response_headers = $6::jsonb,
                response_body = $7, response_encrypted = $8
          WHERE ${SCOPE} AND locked_by = $4 AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM ledger))`;
export const COMPLETE = { name: 'agw.idempotency.complete', text: `WITH ${LEDGER_AND_AUDIT} ${ANSWER}` };

// The invoke's run holds its key inside its own transaction instead (src/idempotency/run-sql.ts): no
// claim row is written and updated, only the answer is inserted, once. The hold is a transaction-level
// advisory lock on the scope, only tried, so a racer is answered 409 at once rather than kept waiting,
// and released by COMMIT, ROLLBACK or a lost connection (a crashed process leaves nothing behind). Its
// outcome goes into a setting local to the transaction for HOLD, the next statement of the batch, to
// read: HOLD's snapshot is taken after the lock, so it sees an answer the previous holder committed, and
// a replay needs no lock (concurrent replays of one answer all get it).
const LOCK_TEXT = `SELECT set_config('agw.idempotency_held',
         pg_try_advisory_xact_lock(hashtextextended(%1 || ' ' || %2 || ' ' || %3, 0))::text, true)`;

/** The hold's lock for `scope`, ahead of HOLD in one round trip (inlined for PGlite's simple query). */
export function holdLockStatement(tenant: string, principal: string, key: string): NamedBatchStatement {
  const values = [tenant, principal, key];
  return {
    name: 'agw.idempotency.lock',
    text: LOCK_TEXT.replace(/%(\d)/g, (_, n: string) => `$${n}::text`),
    values,
    inline: LOCK_TEXT.replace(/%(\d)/g, (_, n: string) => literal(values[Number(n) - 1] as string)),
  };
}

/** `value` as an SQL string literal (standard_conforming_strings, the default: only quotes are special). */
function literal(value: string): string {
  if (value.includes('\0')) throw new Error('An SQL text cannot hold a NUL character.');
  return `'${value.replaceAll("'", "''")}'`;
}

// Whether the lock was taken, and the scope's live row, if any: an answer to replay, another request's
// fingerprint, or a claim the request path above (CLAIM) made and still holds.
const HOLD_COLUMNS = `current_setting('agw.idempotency_held') = 'true' AS locked, k.fingerprint, k.state,
       (k.lease_expires_at > now()) AS lease_live, k.response_status, k.response_headers, k.response_body,
       k.response_encrypted`;
const HOLD_FROM = `FROM (SELECT 1) AS one LEFT JOIN ${TABLE} k ON ${SCOPE} AND expires_at > now()`;
export const HOLD = { name: 'agw.idempotency.hold', text: `SELECT ${HOLD_COLUMNS} ${HOLD_FROM}` };
// The same row and the wallet snapshot billing is about to read, in one statement.
export const HOLD_SNAPSHOT = {
  name: 'agw.idempotency.hold-snapshot',
  text: `SELECT ${HOLD_COLUMNS}, snapshot.* ${HOLD_FROM} CROSS JOIN (${snapshotSelect(4)}) AS snapshot`,
};
// The answer of a held run, inserted ($4: the request's fingerprint, `retention`: the parameter of the
// retention in seconds) with its charge and audit rows (as in COMPLETE). A row already there is replaced
// only when it no longer counts: past its retention, or a request-path claim whose lease ran out.
// Otherwise — a live claim the request path made since the hold read the scope — nothing is stored and
// the caller rolls back.
const store = (
  retention: string,
) => `INSERT INTO ${TABLE} (scope_tenant, scope_principal, idem_key, fingerprint, state,
                   recovery_point, response_status, response_headers, response_body, response_encrypted,
                   expires_at)
          SELECT $1::text, $2::text, $3::text, $4::text, 'completed', 'finished', $5::int, $6::jsonb,
                 $7::bytea, $8::boolean, now() + make_interval(secs => ${retention}::int)
           WHERE $11::text IS NULL OR EXISTS (SELECT 1 FROM ledger)
          ON CONFLICT (scope_tenant, scope_principal, idem_key) DO UPDATE
            SET fingerprint = EXCLUDED.fingerprint, state = 'completed', recovery_point = 'finished',
                locked_by = NULL, lease_expires_at = NULL, response_status = EXCLUDED.response_status,
                response_headers = EXCLUDED.response_headers, response_body = EXCLUDED.response_body,
                response_encrypted = EXCLUDED.response_encrypted, created_at = now(),
                expires_at = EXCLUDED.expires_at
            WHERE ${TABLE}.expires_at <= now()
               OR (${TABLE}.state = 'in_progress' AND ${TABLE}.lease_expires_at <= now())`;
export const STORE_ANSWER = {
  name: 'agw.idempotency.store',
  text: `WITH ${LEDGER_AND_AUDIT} ${store('$15')}`,
};
/** What the statement below fails with when it stored nothing; and when the charge was why. */
const NOT_STORED = 'agw: idempotent answer not stored';
const CHARGED_BEFORE = ', its charge made before';
// The same writes, for a caller that sends COMMIT behind it in the same batch: when no answer was stored
// the statement fails — a text that is no number cast to int, evaluated only for the row HAVING lets
// through — so PostgreSQL skips the COMMIT up to the batch's Sync and the caller rolls back.
const storeOrFail = (audit: string, retention: string) => `WITH ${ledgerAndAudit(audit)},
         answered AS (${store(retention)} RETURNING 1)
         SELECT ('${NOT_STORED}'
                 || CASE WHEN $11::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger)
                         THEN '${CHARGED_BEFORE}' ELSE '' END
                 || ', rows: ' || count(*))::int
           FROM answered HAVING count(*) <> 1`;
export const STORE_OR_FAIL = {
  name: 'agw.idempotency.store-or-fail',
  text: storeOrFail(auditRowsSelect(14), '$15'),
};
// The same for a run with one audit row (most): $14 the retention, the row's columns from $15.
export const STORE_ONE_OR_FAIL = {
  name: 'agw.idempotency.store-one-or-fail',
  text: storeOrFail(auditRowSelect(15), '$14'),
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

/**
 * Why the store's `storeAndCommit` stored nothing, from its error: `charged` when the run's charge scope
 * was charged before, `stored` when an answer is stored under the key already; undefined for any other
 * error.
 */
export function notStoredReason(error: unknown): 'charged' | 'stored' | undefined {
  if (!(error instanceof Error) || !error.message.includes(NOT_STORED)) return undefined;
  return error.message.includes(CHARGED_BEFORE) ? 'charged' : 'stored';
}
