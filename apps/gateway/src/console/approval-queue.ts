import type { Knex } from 'knex';
import { decryptApprovalParams } from '../admin/approval-details.js';
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

const QUEUE_PAGE_SIZE = 25;

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

/** The queue's filters (an organization id and a capability id, both exact) and its cursor. */
export interface QueueFilter {
  readonly organization?: string | undefined;
  readonly capability?: string | undefined;
  readonly after?: string | undefined;
}

/**
 * Waiting approvals (pending, not expired), oldest first, a page at a time by keyset: the next page
 * starts after the last row's (created_at, approval_id), so page 400 costs what page 1 does (the
 * partial index `approvals_pending_queue` serves the order; a filter is a condition on its rows).
 */
export async function readQueue(knex: Knex, box: SecretBox, filter: QueueFilter = {}): Promise<QueuePage> {
  const query = selectApprovals(knex)
    .where('a.status', 'pending')
    .whereRaw('a.expires_at > now()')
    .orderBy([
      { column: 'a.created_at', order: 'asc' },
      { column: 'a.approval_id', order: 'asc' },
    ])
    .limit(QUEUE_PAGE_SIZE + 1);
  if (filter.organization !== undefined) query.where('a.organization_id', filter.organization);
  if (filter.capability !== undefined) query.where('a.capability_id', filter.capability);
  const match = filter.after === undefined ? null : CURSOR.exec(filter.after);
  if (match)
    query.whereRaw('(a.created_at, a.approval_id) > (?::timestamptz, ?::uuid)', [
      match[1] ?? '',
      match[2] ?? '',
    ]);
  const rows = (await query) as Row[];
  const page = rows.slice(0, QUEUE_PAGE_SIZE);
  const last = page.at(-1);
  return {
    approvals: page.map((row) => toQueued(box, row)),
    next: rows.length > QUEUE_PAGE_SIZE && last ? `${last.cursor_at}_${last.approval_id}` : undefined,
  };
}

/** One waiting approval by id (for a reveal), or undefined. */
export async function readWaitingApproval(
  knex: Knex,
  box: SecretBox,
  id: string,
): Promise<QueuedApproval | undefined> {
  const row = (await selectApprovals(knex)
    .where({ 'a.approval_id': id, 'a.status': 'pending' })
    .whereRaw('a.expires_at > now()')
    .first()) as Row | undefined;
  return row === undefined ? undefined : toQueued(box, row);
}

function toQueued(box: SecretBox, { params_ciphertext, cursor_at: _cursor, ...row }: Row): QueuedApproval {
  return { ...row, params: decryptApprovalParams(box, params_ciphertext) };
}

function selectApprovals(knex: Knex) {
  return knex('approvals as a')
    .join('organizations as o', 'o.id', 'a.organization_id')
    .join('installations as i', 'i.id', 'a.installation_id')
    .join('apps as p', 'p.id', 'i.app_id')
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
}
