import type { Router } from '@koa/router';
import type { Knex } from 'knex';
import { utcMicros } from '../audit-chain/record.js';
import { verifyAuditChain } from '../audit-chain/verify.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { auditIdCondition } from '../ports/audit-rows.js';
import { decodeTrace } from '../ports/audit-trace.js';
import { type AdminRouteKit, UUID_PATTERN } from './approvals.js';
import { adminValidator } from './validation.js';

/**
 * The operator's read side of the audit log: `GET /admin/audit` (newest first, filtered, paged) and
 * `GET /admin/audit/verify` (recomputes the hash chain). Both only read; the rows hold no secrets
 * (keys appear by prefix only), and nothing is added to them here.
 */

/** One audit row as the operator sees it. */
export interface AuditEventView {
  readonly audit_id: string;
  /** Its place in the hash chain; null until the sealer reached it (about a second). */
  readonly seq: number | null;
  /** ISO 8601 UTC to the microsecond, as stored. */
  readonly occurred_at: string;
  readonly request_id: string;
  /** `installation:<id>`, `operator:<key prefix>`, `anonymous`, `cli:database`. */
  readonly actor: string;
  readonly action: string;
  readonly outcome: string;
  readonly http_status: number;
  /** `details.organization_id`, when the row names one. */
  readonly organization_id: string | null;
  readonly details: Record<string, unknown>;
}

/** Query of GET /admin/audit. */
export interface AuditListQuery {
  organization?: string;
  installation?: string;
  actor?: string;
  action?: string;
  outcome?: string;
  since?: string;
  cursor?: string;
  limit?: string;
}

export const DEFAULT_AUDIT_LIMIT = 50;

const validateAuditListQuery = adminValidator<AuditListQuery>({
  type: 'object',
  additionalProperties: false,
  properties: {
    organization: { type: 'string', pattern: UUID_PATTERN },
    installation: { type: 'string', pattern: UUID_PATTERN },
    actor: { type: 'string', minLength: 1, maxLength: 200 },
    action: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,100}$' },
    outcome: { type: 'string', pattern: '^[a-z_]{1,40}$' },
    since: { type: 'string', format: 'date-time' },
    cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' },
    limit: { type: 'string', pattern: '^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$' },
  },
});

/** Query of GET /admin/audit/verify: an anchor recorded earlier, both parts or neither. */
interface VerifyQuery {
  anchor_seq?: string;
  anchor_hash?: string;
}

const validateVerifyQuery = adminValidator<VerifyQuery>({
  type: 'object',
  additionalProperties: false,
  dependentRequired: { anchor_seq: ['anchor_hash'], anchor_hash: ['anchor_seq'] },
  properties: {
    anchor_seq: { type: 'string', pattern: '^[1-9][0-9]{0,14}$' },
    anchor_hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
});

// The cursor is the position of the last row shown: its occurred_at (microseconds) and id. It only
// selects among rows the operator may read anyway, so it is encoded, not signed.
function encodeCursor(occurredAt: string, id: string): string {
  return Buffer.from(`${occurredAt}|${id}`, 'utf8').toString('base64url');
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([0-9a-f-]{36})$/;

function decodeCursor(cursor: string): { occurredAt: string; id: string } {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1] || !match[2] || !new RegExp(UUID_PATTERN).test(match[2])) {
    throw new GatewayError('invalid_cursor', { message: 'The cursor is not one this endpoint returned.' });
  }
  return { occurredAt: match[1], id: match[2] };
}

interface AuditRow {
  id: string;
  audit_id: string;
  seq: string | number | null;
  occurred_at: string;
  request_id: string;
  actor: string;
  action: string;
  outcome: string;
  http_status: number;
  details: string;
}

/** Audit rows newest first (occurred_at, then id), with the cursor of the next page or null. */
export async function listAuditEvents(
  knex: Knex,
  // capability, until and audit_id: the console's filters (src/console/audit-page.ts).
  filter: Omit<AuditListQuery, 'limit'> & {
    limit: number;
    capability?: string;
    until?: string;
    audit_id?: string;
  },
): Promise<{ events: AuditEventView[]; next_cursor: string | null }> {
  const query = knex('audit_events as e')
    .leftJoin('audit_chain as c', 'c.event_id', 'e.id')
    .select(
      'e.id',
      'e.audit_id',
      'c.seq',
      knex.raw(`${utcMicros('e.occurred_at')} as occurred_at`),
      'e.request_id',
      'e.actor',
      'e.action',
      'e.outcome',
      'e.http_status',
      knex.raw('e.details::text as details'),
    )
    .orderBy([
      { column: 'e.occurred_at', order: 'desc' },
      { column: 'e.id', order: 'desc' },
    ])
    .limit(filter.limit + 1);
  if (filter.organization !== undefined) {
    query.whereRaw("e.details->>'organization_id' = ?", [filter.organization.toLowerCase()]);
  }
  if (filter.installation !== undefined) {
    const id = filter.installation.toLowerCase();
    query.where((inner) =>
      inner.where('e.actor', `installation:${id}`).orWhereRaw("e.details->>'installation_id' = ?", [id]),
    );
  }
  if (filter.actor !== undefined) query.where('e.actor', filter.actor);
  if (filter.action !== undefined) query.where('e.action', filter.action);
  if (filter.outcome !== undefined) query.where('e.outcome', filter.outcome);
  if (filter.since !== undefined) query.whereRaw('e.occurred_at >= ?::timestamptz', [filter.since]);
  if (filter.until !== undefined) query.whereRaw('e.occurred_at < ?::timestamptz', [filter.until]);
  if (filter.audit_id !== undefined) {
    const condition = auditIdCondition(filter.audit_id);
    query.whereRaw(condition.sql, condition.bindings);
  }
  if (filter.capability !== undefined) {
    // An invoke's row names it as target_id, an approval decision's as capability_id.
    query.whereRaw("(e.details->>'target_id' = ? or e.details->>'capability_id' = ?)", [
      filter.capability,
      filter.capability,
    ]);
  }
  if (filter.cursor !== undefined) {
    const { occurredAt, id } = decodeCursor(filter.cursor);
    query.whereRaw('(e.occurred_at, e.id) < (?::timestamptz, ?::uuid)', [occurredAt, id]);
  }
  const rows = (await query) as AuditRow[];
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    events: page.map(toView),
    next_cursor: rows.length > filter.limit && last ? encodeCursor(last.occurred_at, last.id) : null,
  };
}

function toView(row: AuditRow): AuditEventView {
  const details = JSON.parse(row.details) as Record<string, unknown>;
  if ('trace' in details) details.trace = decodeTrace(details.trace);
  const organization = details.organization_id;
  return {
    audit_id: row.audit_id,
    seq: row.seq === null ? null : Number(row.seq),
    occurred_at: row.occurred_at,
    request_id: row.request_id,
    actor: row.actor,
    action: row.action,
    outcome: row.outcome,
    http_status: Number(row.http_status),
    organization_id: typeof organization === 'string' ? organization : null,
    details,
  };
}

/** GET /admin/audit and GET /admin/audit/verify. */
export function registerAuditRoutes(router: Router<GatewayState>, kit: AdminRouteKit): void {
  const { knex, route, reply } = kit;
  router.get(
    '/admin/audit',
    route(async ({ ctx }) => {
      const { limit, ...filter } = validateAuditListQuery({ ...ctx.query });
      const page = await listAuditEvents(knex, {
        ...filter,
        limit: limit === undefined ? DEFAULT_AUDIT_LIMIT : Number(limit),
      });
      reply(ctx, page);
    }),
  );
  router.get(
    '/admin/audit/verify',
    route(async ({ ctx }) => {
      const query = validateVerifyQuery({ ...ctx.query });
      const anchor =
        query.anchor_seq !== undefined && query.anchor_hash !== undefined
          ? { seq: Number(query.anchor_seq), hash: query.anchor_hash }
          : undefined;
      reply(ctx, { ...(await verifyAuditChain(knex, anchor)) });
    }),
  );
}
