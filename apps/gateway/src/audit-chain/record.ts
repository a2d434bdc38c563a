import { canonicalJson, sha256Hex } from '@agw/guard';

/** `prev_hash` of seq 1: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

// Timestamps are hashed as PostgreSQL renders them, to the microsecond and in UTC, never through a JS
// Date (milliseconds only): the sealer and verify must see exactly the stored value.
const UTC_MICROS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** SQL rendering a timestamptz column as `2026-11-23T10:15:30.123456Z`. */
export function utcMicros(column: string): string {
  return `to_char(${column} at time zone 'UTC', ${UTC_MICROS})`;
}

/**
 * The `audit_events` columns as hashed: timestamps rendered by {@link utcMicros}, `details` as jsonb's
 * text (parsed here, not by the driver, so pg and PGlite agree). `e` is the table alias.
 */
export const EVENT_COLUMNS_SQL = [
  'e.id::text as id',
  'e.audit_id',
  `${utcMicros('e.occurred_at')} as occurred_at`,
  'e.request_id',
  'e.actor',
  'e.action',
  'e.outcome',
  'e.http_status',
  'e.details::text as details',
].join(', ');

/** One `audit_events` row as {@link EVENT_COLUMNS_SQL} reads it. */
export interface StoredEvent {
  readonly id: string;
  readonly audit_id: string;
  readonly occurred_at: string;
  readonly request_id: string;
  readonly actor: string;
  readonly action: string;
  readonly outcome: string;
  readonly http_status: number;
  /** jsonb text. */
  readonly details: string;
}

/**
 * The chain hash of one sealed row: sha-256 hex of `prev_hash` followed by the RFC 8785 canonical JSON
 * of the row and its place in the chain (`seq`, `sealed_at`). Every column of both tables except
 * `hash` itself is covered. jsonb normalizes key order and whitespace; canonical JSON makes the hash
 * independent of that rendering as well.
 * @throws TypeError when `details` is not JSON canonical JSON can represent (only a tampered row).
 */
export function chainHash(prevHash: string, seq: number, sealedAt: string, event: StoredEvent): string {
  return sha256Hex(`${prevHash}${canonicalRecord(seq, sealedAt, event)}`);
}

/**
 * `canonicalJson({ seq, sealed_at, event: { id, …, details } })`, written out with its keys already in
 * canonical order: the sealer hashes every audit row, and sorting the same twelve keys of every row
 * cost about as much as the row's `details` (test/audit-chain-record.test.ts pins the equality).
 */
function canonicalRecord(seq: number, sealedAt: string, event: StoredEvent): string {
  const j = canonicalJson;
  return (
    `{"event":{"action":${j(event.action)},"actor":${j(event.actor)},"audit_id":${j(event.audit_id)},` +
    `"details":${j(JSON.parse(event.details))},"http_status":${j(Number(event.http_status))},` +
    `"id":${j(event.id)},"occurred_at":${j(event.occurred_at)},"outcome":${j(event.outcome)},` +
    `"request_id":${j(event.request_id)}},"sealed_at":${j(sealedAt)},"seq":${j(seq)}}`
  );
}
