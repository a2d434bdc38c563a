import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { CapabilityError } from '../define.js';
import type { Sql } from '../sql.js';
import { runStatement } from '../sql.js';
import { iso } from './common.js';
import { linkFind } from './sql.js';

/** A booking link row (the secret's hash never leaves this module's callers). */
export interface LinkRow {
  readonly id: string;
  readonly organization_id: string;
  readonly installation_id: string;
  readonly calendar_id: string;
  readonly template_id: string | null;
  readonly slug: string;
  readonly access_mode: 'public' | 'secret';
  readonly secret_sha256: Uint8Array | null;
  readonly secret_issued_at: Date | null;
  readonly title: string;
  readonly intro: string | null;
  readonly recipient_email: string | null;
  readonly recipient_name: string | null;
  readonly recipient_account_id: string | null;
  readonly project_id: string | null;
  readonly valid_until: Date | null;
  readonly one_time_use: boolean;
  readonly status: 'active' | 'expired' | 'revoked' | 'booked';
  readonly allowed_event_type_ids: string[];
  readonly email_binding_required: boolean;
  readonly phone_required: boolean;
  readonly booking_window_days: number;
  readonly min_notice_minutes: number;
  readonly slot_limit: number;
  /** Bookings this link takes per hour; null: the gateway's default (docs/calendar.md, "Caps"). */
  readonly bookings_per_hour: number | null;
  readonly rules_json: Record<string, unknown> | null;
  readonly context: Record<string, unknown> | null;
  readonly booked_at: Date | null;
  readonly revoked_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** The status a caller sees: an active link past `valid_until` is expired, whatever the row says. */
export function linkStatus(row: LinkRow, now: Date): LinkRow['status'] {
  if (row.status === 'active' && row.valid_until && row.valid_until.getTime() <= now.getTime())
    return 'expired';
  return row.status;
}

/** True when the link may take a booking at `now`. */
export function linkBookable(row: LinkRow, now: Date): boolean {
  return linkStatus(row, now) === 'active' && (row.access_mode === 'public' || row.secret_sha256 !== null);
}

/** The page's path: a public link's is its slug; a secret link's needs the secret, shown once. */
export function publicPath(slug: string, secret?: string): string {
  return secret ? `/book/${slug}/${secret}` : `/book/${slug}`;
}

/**
 * Where a person opens the page: `path` on PUBLIC_BASE_URL (`https://gateway.example.com/book/…`), for
 * an agent to hand on as it is; `{}` when the host named no base URL or there is no path.
 */
export function publicUrl(baseUrl: string | undefined, path: string | null): { url?: string } {
  return baseUrl === undefined || path === null ? {} : { url: `${baseUrl}${path}` };
}

/** A link as the capabilities answer it: no secret, no hash; `has_secret` says whether one is live. */
export function linkView(row: LinkRow, now: Date) {
  const { secret_sha256, organization_id, installation_id, ...rest } = row;
  return {
    ...rest,
    status: linkStatus(row, now),
    has_secret: secret_sha256 !== null,
    secret_issued_at: iso(row.secret_issued_at),
    valid_until: iso(row.valid_until),
    booked_at: iso(row.booked_at),
    revoked_at: iso(row.revoked_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** A new secret: 32 random bytes (256 bits), base64url, and the SHA-256 that is all the row keeps. */
export function newSecret(): { secret: string; sha256: Buffer } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, sha256: sha256(secret) };
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(stored: Uint8Array | null, presented: string | undefined): boolean {
  if (!stored || presented === undefined) return false;
  const hash = sha256(presented);
  return stored.length === hash.length && timingSafeEqual(stored, hash);
}

/** The link `id` of this organization, or not_found. */
export async function findLink(sql: Sql, organizationId: string, id: string): Promise<LinkRow> {
  const { rows } = await runStatement<LinkRow>(sql, linkFind, [organizationId, id]);
  const row = rows[0];
  if (!row) throw new CapabilityError('not_found', 'No booking link with that link_id.');
  return row;
}
