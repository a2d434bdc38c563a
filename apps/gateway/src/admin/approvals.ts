import type { Router, RouterContext } from '@koa/router';
import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { type ApprovalFacts, approvalDetails } from './approval-details.js';
import type { OperatorPrincipal } from './operator-auth.js';
import { iso } from './rows.js';
import { adminValidator } from './validation.js';

/**
 * The operator side of run approvals (rows the policy guard creates for high-risk runs).
 * The approval token and its hash are never read here: the operator sees the binding (capability,
 * version, params hash), the reason and the state, not the credential the agent redeems.
 */

/** Stored states plus `expired`: a pending approval whose `expires_at` passed (by the database clock). */
export type RunApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** An approval as the operator sees it. */
export interface RunApprovalView {
  readonly approval_id: string;
  readonly status: RunApprovalStatus;
  readonly organization_id: string;
  readonly installation_id: string;
  readonly capability_id: string;
  readonly capability_version: string;
  readonly params_hash: string;
  readonly reason: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly decided_at: string | null;
  /** Set once the approved run executed (the token is single-use). */
  readonly consumed_at: string | null;
}

interface ApprovalRow {
  approval_id: string;
  status: 'pending' | 'approved' | 'denied';
  expired: boolean;
  organization_id: string;
  installation_id: string;
  capability_id: string;
  capability_version: string;
  params_hash: string;
  reason: string;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  consumed_at: Date | null;
}

// Explicit columns: token_hash is never selected.
function selectApprovals(knex: Knex | Knex.Transaction) {
  return knex('approvals').select(
    'approval_id',
    'status',
    knex.raw('(expires_at <= now()) as expired'),
    'organization_id',
    'installation_id',
    'capability_id',
    'capability_version',
    'params_hash',
    'reason',
    'created_at',
    'expires_at',
    'decided_at',
    'consumed_at',
  );
}

function toView(row: ApprovalRow): RunApprovalView {
  return {
    approval_id: row.approval_id,
    status: row.status === 'pending' && row.expired ? 'expired' : row.status,
    organization_id: row.organization_id,
    installation_id: row.installation_id,
    capability_id: row.capability_id,
    capability_version: row.capability_version,
    params_hash: row.params_hash,
    reason: row.reason,
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
    decided_at: iso(row.decided_at),
    consumed_at: iso(row.consumed_at),
  };
}

/** Query of GET /admin/approvals. */
export interface ApprovalListQuery {
  status?: RunApprovalStatus | 'all';
  organization?: string;
  limit?: string;
}

/** Body of POST /admin/approvals/:id/deny. */
export interface DenyBody {
  reason?: string;
}

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const validateApprovalListQuery = adminValidator<ApprovalListQuery>({
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: ['pending', 'approved', 'denied', 'expired', 'all'] },
    organization: { type: 'string', pattern: UUID_PATTERN },
    limit: { type: 'string', pattern: '^(?:[1-9][0-9]{0,2}|1000)$' },
  },
});

export const validateDenyBody = adminValidator<DenyBody>({
  type: 'object',
  additionalProperties: false,
  properties: { reason: { type: 'string', minLength: 1, maxLength: 500 } },
});

/** Approvals, oldest first (the queue order). `pending` excludes expired ones; `expired` is only them. */
export async function listApprovals(
  knex: Knex,
  filter: { status: RunApprovalStatus | 'all'; organization?: string | undefined; limit: number },
): Promise<RunApprovalView[]> {
  const query = selectApprovals(knex).orderBy('created_at', 'asc').orderBy('approval_id').limit(filter.limit);
  if (filter.organization !== undefined) query.where('organization_id', filter.organization);
  if (filter.status === 'pending') query.where('status', 'pending').whereRaw('expires_at > now()');
  else if (filter.status === 'expired') query.where('status', 'pending').whereRaw('expires_at <= now()');
  else if (filter.status !== 'all') query.where('status', filter.status);
  return ((await query) as ApprovalRow[]).map(toView);
}

/** One approval and the params it keeps (encrypted; null when none were kept). */
export interface FoundApproval {
  readonly approval: RunApprovalView;
  readonly paramsCiphertext: Buffer | Uint8Array | null;
}

/** One approval, or undefined. */
export async function findApproval(
  knex: Knex | Knex.Transaction,
  id: string,
): Promise<FoundApproval | undefined> {
  const row = (await selectApprovals(knex).select('params_ciphertext').where('approval_id', id).first()) as
    | (ApprovalRow & { params_ciphertext: Buffer | Uint8Array | null })
    | undefined;
  return row ? { approval: toView(row), paramsCiphertext: row.params_ciphertext } : undefined;
}

/** What an approve or deny did. */
export interface ApprovalDecisionResult {
  readonly approval: RunApprovalView;
  readonly previous_status: RunApprovalStatus;
  /** False when the approval already had this decision (nothing was written). */
  readonly changed: boolean;
}

/**
 * Decides a run approval, locking its row. A state set: the same decision again answers
 * `changed: false`; the opposite decision on a decided approval is 409 `conflict` (a decision is
 * final, and an approved token may already have run). An expired approval cannot be approved (409,
 * the agent invokes again for a new one); denying it is allowed and records the refusal.
 */
export async function decideApproval(
  trx: Knex.Transaction,
  id: string,
  decision: 'approved' | 'denied',
): Promise<ApprovalDecisionResult> {
  const locked = await trx('approvals').where({ approval_id: id }).forUpdate().first('approval_id');
  const current = locked ? (await findApproval(trx, id))?.approval : undefined;
  if (!current) throw approvalNotFound(id);
  const previous = current.status;
  if (previous === decision) return { approval: current, previous_status: previous, changed: false };
  if (previous === 'approved' || previous === 'denied') {
    throw new GatewayError('conflict', {
      message: `Approval ${id} was already ${previous}; a decision is final.`,
      hint: 'The agent can invoke again to ask for a new approval.',
      details: [{ approval_id: id, status: previous }],
    });
  }
  if (previous === 'expired' && decision === 'approved') {
    throw new GatewayError('conflict', {
      message: `Approval ${id} expired at ${current.expires_at} and can no longer be approved.`,
      hint: 'The agent invokes again to get a new pending approval; approve that one.',
      details: [{ approval_id: id, status: 'expired', expires_at: current.expires_at }],
    });
  }
  await trx('approvals').where({ approval_id: id }).update({ status: decision, decided_at: trx.fn.now() });
  const approval = (await findApproval(trx, id))?.approval;
  if (!approval) throw approvalNotFound(id);
  return { approval, previous_status: previous, changed: true };
}

/** What the audit row of an approve or deny says (the admin API's and the console's alike). */
export function approvalAuditDetails(
  result: ApprovalDecisionResult,
  decision: 'approved' | 'denied',
  reason: string | undefined,
): Record<string, unknown> {
  return {
    approval_id: result.approval.approval_id,
    organization_id: result.approval.organization_id,
    installation_id: result.approval.installation_id,
    capability_id: result.approval.capability_id,
    params_hash: result.approval.params_hash,
    previous_status: result.previous_status,
    status: decision,
    changed: result.changed,
    ...(reason === undefined ? {} : { reason }),
  };
}

/** 404 for an approval id that does not exist. */
export function approvalNotFound(id: string): GatewayError {
  return new GatewayError('not_found', { message: `No approval with id ${id}.` });
}

/** The parts of the admin router a route group needs (see routes/admin.ts). */
export interface AdminRouteKit {
  readonly knex: Knex;
  route(
    handler: (call: AdminCallLike) => Promise<void>,
    withBody?: boolean,
  ): (ctx: AdminContext) => Promise<void>;
  reply(ctx: AdminContext, body: Record<string, unknown>, withAudit?: boolean): void;
  /** The admin API's JSON body parser (size limit, content type); sets `ctx.state.body`. */
  readonly parseBody: Middleware<GatewayState>;
  /** Params, risk, cost and preflight of an approval (GET /admin/approvals/:id). */
  readonly facts: ApprovalFacts;
}

/** Parses the body when the request has one; an optional body may also be absent. */
async function optionalBody(kit: AdminRouteKit, ctx: AdminContext): Promise<unknown> {
  const hasBody = Number(ctx.get('content-length') || '0') > 0 || ctx.get('transfer-encoding') !== '';
  if (!hasBody) return undefined;
  await kit.parseBody(ctx as never, async () => {});
  return ctx.state.body;
}

/** The Koa context of an admin request. */
export type AdminContext = RouterContext<GatewayState>;

/** One authenticated admin request: `audited` runs the effect and its audit row in one transaction. */
export interface AdminCallLike {
  readonly ctx: AdminContext;
  readonly operator: OperatorPrincipal;
  audited<T>(
    action: string,
    status: number | ((result: T) => number),
    effect: (trx: Knex.Transaction) => Promise<{ result: T; details: Record<string, unknown> }>,
  ): Promise<T>;
}

const UUID = new RegExp(UUID_PATTERN);
const DEFAULT_LIST_LIMIT = 100;

/** GET /admin/approvals, GET /admin/approvals/:id, POST /admin/approvals/:id/{approve,deny}. */
export function registerApprovalRoutes(router: Router<GatewayState>, kit: AdminRouteKit): void {
  const { knex, route, reply } = kit;
  router.get(
    '/admin/approvals',
    route(async ({ ctx }) => {
      const query = validateApprovalListQuery({ ...ctx.query });
      const approvals = await listApprovals(knex, {
        status: query.status ?? 'pending',
        organization: query.organization,
        limit: query.limit === undefined ? DEFAULT_LIST_LIMIT : Number(query.limit),
      });
      reply(ctx, { approvals });
    }),
  );
  router.get(
    '/admin/approvals/:id',
    route(async ({ ctx }) => {
      const id = ctx.params.id ?? '';
      const found = UUID.test(id) ? await findApproval(knex, id) : undefined;
      if (!found) throw approvalNotFound(id);
      reply(ctx, {
        approval: await approvalDetails(knex, kit.facts, found.approval, found.paramsCiphertext),
      });
    }),
  );
  for (const [verb, decision] of [
    ['approve', 'approved'],
    ['deny', 'denied'],
  ] as const) {
    router.post(
      `/admin/approvals/:id/${verb}`,
      route(async (call) => {
        const id = call.ctx.params.id ?? '';
        // The body is optional ({} or none); deny may carry a reason, which goes to the audit row.
        const raw = await optionalBody(kit, call.ctx);
        const body = raw === undefined || verb === 'approve' ? {} : validateDenyBody(raw);
        if (!UUID.test(id)) throw approvalNotFound(id);
        const outcome = await call.audited(`approval.${verb}`, 200, async (trx) => {
          const result = await decideApproval(trx, id, decision);
          return { result, details: approvalAuditDetails(result, decision, body.reason) };
        });
        reply(call.ctx, { ...outcome, ...(body.reason === undefined ? {} : { reason: body.reason }) }, true);
      }),
    );
  }
}
