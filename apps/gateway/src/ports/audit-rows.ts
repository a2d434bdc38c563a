import type { Sql } from '@agw/capabilities';

/** One `audit_events` row as the gateway writes it (`details` already serialized JSON). */
export interface AuditRow {
  readonly audit_id: string;
  /** When the event happened; the database's `now()` when absent. */
  readonly occurred_at?: string | Date | null;
  readonly request_id: string;
  readonly actor: string;
  readonly action: string;
  readonly outcome: string;
  readonly http_status: number;
  readonly details: string;
}

/**
 * `audit_events` rows from eight parallel arrays, starting at parameter `$first`: any number of rows in
 * one fixed statement text, so it is parsed and planned once per connection as a named statement
 * (knex built a new INSERT text for each row count). `unnest` keeps the arrays' order, so rows are
 * inserted — and queued for sealing — in the order they were given.
 */
export function auditRowsSelect(first: number): string {
  const p = (offset: number) => `$${first + offset}`;
  return `select u.audit_id, coalesce(u.occurred_at, now()), u.request_id, u.actor, u.action, u.outcome,
       u.http_status, u.details::jsonb
  from unnest(${p(0)}::text[], ${p(1)}::timestamptz[], ${p(2)}::text[], ${p(3)}::text[], ${p(4)}::text[],
              ${p(5)}::text[], ${p(6)}::int[], ${p(7)}::text[])
    as u(audit_id, occurred_at, request_id, actor, action, outcome, http_status, details)`;
}

/** The insert's column list, in the order of {@link auditRowsSelect}. */
export const AUDIT_COLUMNS =
  'audit_events (audit_id, occurred_at, request_id, actor, action, outcome, http_status, details)';

/** The eight arrays {@link auditRowsSelect} reads. */
export function auditRowParams(rows: readonly AuditRow[]): unknown[][] {
  return [
    rows.map((row) => row.audit_id),
    rows.map((row) => row.occurred_at ?? null),
    rows.map((row) => row.request_id),
    rows.map((row) => row.actor),
    rows.map((row) => row.action),
    rows.map((row) => row.outcome),
    rows.map((row) => row.http_status),
    rows.map((row) => row.details),
  ];
}

const INSERT = { name: 'agw.audit.insert', text: `insert into ${AUDIT_COLUMNS} ${auditRowsSelect(1)}` };

/** Inserts `rows` in one statement on `sql`. */
export async function insertAuditRows(sql: Sql, rows: readonly AuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(INSERT.text, auditRowParams(rows), { name: INSERT.name });
}
