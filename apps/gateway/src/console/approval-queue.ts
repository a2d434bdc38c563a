import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box.js';

/** One waiting approval as the console shows it. */
export interface QueuedApproval {
  readonly approval_id: string;
  readonly organization_id: string;
  readonly organization_name: string;
  readonly installation_id: string;
  readonly app_name: string;
  readonly app_slug: string;
  readonly capability_id: string;
  readonly capability_version: string;
  readonly params_hash: string;
  /** The run's params, decrypted; undefined for an approval stored before params were kept. */
  readonly params: unknown;
  readonly reason: string;
  readonly created_at: Date;
  readonly expires_at: Date;
}

/** One page of the queue and the cursor of the next, if there is one. */
export interface QueuePage {
  readonly approvals: readonly QueuedApproval[];
  readonly next: string | undefined;
}

export const QUEUE_PAGE_SIZE = 25;

interface Row extends Omit<QueuedApproval, 'params'> {
  params_ciphertext: Buffer | Uint8Array | null;
  cursor_at: string;
}

// A cursor is the last row's `created_at` (microseconds, UTC) and id: `<timestamp>_<uuid>`.
const CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)_([0-9a-f-]{36})$/;

/** Whether `cursor` is one {@link readQueue} hands out (anything else is a bad request). */
export function isQueueCursor(cursor: string): boolean {
  return CURSOR.test(cursor);
}

/**
 * Waiting approvals (pending, not expired), oldest first, a page at a time by keyset: the next page
 * starts after the last row's (created_at, approval_id), so page 400 costs what page 1 does (the
 * partial index `approvals_pending_queue` serves the order).
 */
export async function readQueue(knex: Knex, box: SecretBox, after?: string): Promise<QueuePage> {
  const query = knex('approvals as a')
    .join('organizations as o', 'o.id', 'a.organization_id')
    .join('installations as i', 'i.id', 'a.installation_id')
    .join('apps as p', 'p.id', 'i.app_id')
    .where('a.status', 'pending')
    .whereRaw('a.expires_at > now()')
    .orderBy([
      { column: 'a.created_at', order: 'asc' },
      { column: 'a.approval_id', order: 'asc' },
    ])
    .limit(QUEUE_PAGE_SIZE + 1)
    .select(
      'a.approval_id',
      'a.organization_id',
      'o.name as organization_name',
      'a.installation_id',
      'p.name as app_name',
      'p.slug as app_slug',
      'a.capability_id',
      'a.capability_version',
      'a.params_hash',
      'a.params_ciphertext',
      'a.reason',
      'a.created_at',
      'a.expires_at',
      knex.raw(`to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at`),
    );
  const match = after === undefined ? null : CURSOR.exec(after);
  if (match)
    query.whereRaw('(a.created_at, a.approval_id) > (?::timestamptz, ?::uuid)', [
      match[1] ?? '',
      match[2] ?? '',
    ]);
  const rows = (await query) as Row[];
  const page = rows.slice(0, QUEUE_PAGE_SIZE);
  const last = page.at(-1);
  return {
    approvals: page.map(({ params_ciphertext, cursor_at: _cursor, ...row }) => ({
      ...row,
      params: decryptParams(box, params_ciphertext),
    })),
    next: rows.length > QUEUE_PAGE_SIZE && last ? `${last.cursor_at}_${last.approval_id}` : undefined,
  };
}

// Undefined when none were kept, or when they were encrypted under another SECRET_KEY: the page then
// shows the params hash only, as for an approval stored before params were kept.
function decryptParams(box: SecretBox, ciphertext: Buffer | Uint8Array | null): unknown {
  if (ciphertext === null) return undefined;
  try {
    return JSON.parse(box.decrypt('approval-params', Buffer.from(ciphertext)).toString('utf8'));
  } catch {
    return undefined;
  }
}
