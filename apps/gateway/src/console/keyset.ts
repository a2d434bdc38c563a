import type { Knex } from 'knex';
import { UUID_PATTERN } from '../admin/approvals.js';
import { GatewayError } from '../http/gateway-error.js';

/**
 * Keyset paging of the console's lists: a cursor is the last row's timestamp (microseconds, UTC) and
 * id, `<timestamp>_<uuid>`, so page 400 costs what page 1 does. Only rows the operator may read anyway
 * are selected by it, so it is plain text, not signed.
 */
const CURSOR = new RegExp(
  `^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z)_(${UUID_PATTERN.slice(1, -1)})$`,
);

/** The SQL of a row's cursor, selected `as cursor`. */
export function cursorColumn(knex: Knex, at: string, id: string): Knex.Raw {
  return knex.raw(
    `to_char(${at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || ${id} as cursor`,
  );
}

/**
 * Orders `query` by (`at`, `id`) and, with a cursor, keeps the rows after it in that order; a cursor
 * the console did not hand out is a bad request.
 */
export function keyset(
  query: Knex.QueryBuilder,
  cursor: string | undefined,
  at: string,
  id: string,
  order: 'asc' | 'desc',
): void {
  query.orderBy([
    { column: at, order },
    { column: id, order },
  ]);
  if (cursor === undefined) return;
  const match = CURSOR.exec(cursor);
  if (!match) {
    throw new GatewayError('bad_request', { message: 'The page cursor is not one the console handed out.' });
  }
  query.whereRaw(`(${at}, ${id}) ${order === 'asc' ? '>' : '<'} (?::timestamptz, ?::uuid)`, [
    match[1] ?? '',
    match[2] ?? '',
  ]);
}

/** The page of `rows` (fetched with one row more than `size`) and the cursor of the next one. */
export function pageOf<T extends { cursor: string }>(
  rows: readonly T[],
  size: number,
): { rows: T[]; next: string | undefined } {
  const page = rows.slice(0, size);
  return { rows: page, next: rows.length > size ? page.at(-1)?.cursor : undefined };
}

/** A query parameter's trimmed text, undefined when absent or empty. */
export function queryText(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

const UUID = new RegExp(UUID_PATTERN);

/** An optional id filter; anything but a UUID is a bad request naming the field. */
export function uuidFilter(query: Record<string, unknown>, name: string): string | undefined {
  const value = queryText(query, name)?.toLowerCase();
  if (value !== undefined && !UUID.test(value)) {
    throw new GatewayError('bad_request', { message: `${name} must be an id (a UUID).` });
  }
  return value;
}
