import { randomUUID } from 'node:crypto';
import { runStatement, type Sql } from '@agw/capabilities';

/** One `audit_events` row as the gateway writes it (`details` already serialized JSON). */
export interface AuditRow {
  readonly audit_id: string;
  /**
   * When the event happened; the database's `now()` when null or absent. A `Date` crosses as its ISO
   * string (`JSON.stringify`), millisecond precision, UTC.
   */
  readonly occurred_at?: string | Date | null;
  readonly request_id: string;
  readonly actor: string;
  readonly action: string;
  readonly outcome: string;
  readonly http_status: number;
  readonly details: string;
}

/**
 * `audit_events` rows from one JSON parameter `$first` (see {@link auditRowsParam}): any number of rows in
 * one fixed statement text, so it is parsed and planned once per connection as a named statement
 * (knex built a new INSERT text for each row count).
 *
 * One JSON text, not eight parallel arrays read with `unnest`: `pg` renders an array parameter by
 * escaping each element with two regular expressions, which for the `details` JSON (quotes throughout)
 * cost 4 µs of CPU a row where `JSON.stringify` costs 2 (pg's escapeElement alone was 1.5 % of a read
 * invoke's gateway CPU). `json_to_recordset` exists on PostgreSQL and PGlite alike.
 *
 * Rows are inserted in the order given — `json_to_recordset` yields the array's elements in order and an
 * INSERT … SELECT with no join or sort inserts them so. The sealer chains by (txid, occurred_at, id)
 * (src/audit-chain/sealer.ts), so the chain does not depend on it; keep the order anyway, so that any
 * reader that takes insertion order sees the caller's order.
 */
export function auditRowsSelect(first: number): string {
  return `select u.id, u.audit_id, coalesce(u.occurred_at, now()), u.request_id, u.actor, u.action, u.outcome,
       u.http_status, u.details::jsonb
  from json_to_recordset($${first}::json) as u(id uuid, audit_id text, occurred_at timestamptz,
       request_id text, actor text, action text, outcome text, http_status int, details text)`;
}

/**
 * One `audit_events` row from the nine parameters from `$first` that {@link auditRowParams} gives, in the
 * order of {@link AUDIT_COLUMNS}: what a statement that writes one row uses. Reading the row out of one
 * JSON text (`json_to_recordset`, {@link auditRowsSelect}) parsed the whole text once as JSON and
 * `details` again as jsonb: about 9 µs of PostgreSQL execution more per row (pgbench, the invoke's
 * answer statement: 109–115 against 100–106 µs).
 */
export function auditRowSelect(first: number): string {
  const p = (offset: number) => `$${first + offset}`;
  return `select ${p(0)}::uuid, ${p(1)}::text, coalesce(${p(2)}::timestamptz, now()), ${p(3)}::text, ${p(4)}::text,
       ${p(5)}::text, ${p(6)}::text, ${p(7)}::int, ${p(8)}::jsonb`;
}

/** The parameters {@link auditRowSelect} reads, for `row` (its id by {@link auditRowId}). */
export function auditRowParams(row: AuditRow): unknown[] {
  const occurredAt =
    row.occurred_at instanceof Date ? row.occurred_at.toISOString() : (row.occurred_at ?? null);
  return [
    auditRowId(row.audit_id),
    row.audit_id,
    occurredAt,
    row.request_id,
    row.actor,
    row.action,
    row.outcome,
    row.http_status,
    row.details,
  ];
}

/** The insert's column list, in the order of {@link auditRowsSelect}. */
export const AUDIT_COLUMNS =
  'audit_events (id, audit_id, occurred_at, request_id, actor, action, outcome, http_status, details)';

/**
 * The one parameter {@link auditRowsSelect} reads: `rows` as a JSON array, each with its
 * {@link auditRowId}. A missing `occurred_at` (undefined: the key is left out) and a null one both read
 * as null, so the row gets `now()`.
 */
export function auditRowsParam(rows: readonly AuditRow[]): string {
  return JSON.stringify(rows.map((row) => ({ id: auditRowId(row.audit_id), ...row })));
}

const LOWER_CASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The `audit_events.id` of a row with `auditId`: the audit id itself when it is a lower-case UUID (as the
 * gateway hands them out), so the primary key finds the row by it and no second unique index is written
 * per row (migration `20261206000000_audit_id_is_row_id`); a random one otherwise, and such a row goes to
 * the partial `audit_id` index. Every writer of `audit_events` sets it.
 */
export function auditRowId(auditId: string): string {
  return LOWER_CASE_UUID.test(auditId) ? auditId : randomUUID();
}

/**
 * The condition "row `e` has audit id `auditId`", with its bindings: the primary key for the rows that
 * took it as their id, the partial index for the others (rows written before, and audit ids that are no
 * lower-case UUID).
 */
export function auditIdCondition(auditId: string): { sql: string; bindings: string[] } {
  const other = '(e.audit_id = ? and e.id::text <> e.audit_id)';
  if (!LOWER_CASE_UUID.test(auditId)) return { sql: other, bindings: [auditId] };
  return { sql: `((e.id = ?::uuid and e.audit_id = ?) or ${other})`, bindings: [auditId, auditId, auditId] };
}

const INSERT = { name: 'agw.audit.insert', text: `insert into ${AUDIT_COLUMNS} ${auditRowsSelect(1)}` };
const INSERT_ONE = {
  name: 'agw.audit.insert-one',
  text: `insert into ${AUDIT_COLUMNS} ${auditRowSelect(1)}`,
};

/** Inserts `rows` in one statement on `sql`, in their order. */
export async function insertAuditRows(sql: Sql, rows: readonly AuditRow[]): Promise<void> {
  const [only] = rows;
  if (only === undefined) return;
  if (rows.length === 1) await runStatement(sql, INSERT_ONE, auditRowParams(only));
  else await runStatement(sql, INSERT, [auditRowsParam(rows)]);
}
