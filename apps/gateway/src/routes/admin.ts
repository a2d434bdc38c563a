import type { Router, RouterContext } from '@koa/router';
import type { Knex } from 'knex';
import { type AccessMode, getAccessMode, inviteOwner, listInvites, setAccessMode } from '../admin/access.js';
import type { ApprovalFacts } from '../admin/approval-details.js';
import { registerApprovalRoutes } from '../admin/approvals.js';
import { runOperatorAction } from '../admin/audit.js';
import { registerAuditRoutes } from '../admin/audit-log.js';
import {
  decideInstallationAudited,
  findInstallation,
  installationNotFound,
  listInstallations,
} from '../admin/installations.js';
import { authenticateOperator, type OperatorPrincipal } from '../admin/operator-auth.js';
import {
  countActiveOperatorKeys,
  createOperatorKey,
  findOperatorKey,
  listOperatorKeys,
  revokeOperatorKey,
} from '../admin/operator-keys.js';
import { registerOrganizationListRoutes } from '../admin/organization-list.js';
import { setOrganizationActive } from '../admin/organizations.js';
import { registerPolicyRoutes } from '../admin/policies.js';
import {
  addSuppression,
  DEFAULT_SUPPRESSION_REASON,
  listSuppressions,
  removeSuppression,
} from '../admin/suppressions.js';
import { normalizeEmail, validateAdminInput } from '../admin/validation.js';
import { registerWalletRoutes } from '../admin/wallets.js';
import { jsonBody } from '../http/body.js';
import { GatewayError } from '../http/gateway-error.js';
import { refusedBeforeBody } from '../http/key-before-body.js';
import type { GatewayState } from '../http/state.js';

/** What the admin routes need. */
export interface AdminRouteOptions {
  readonly knex: Knex;
  readonly bodyLimitBytes: number;
  /** What GET /admin/approvals/:id adds to the row: masked params, risk, cost, preflight verdict. */
  readonly facts: ApprovalFacts;
}

type Context = RouterContext<GatewayState>;

/** The context of one authenticated admin request. */
interface AdminCall {
  readonly ctx: Context;
  readonly operator: OperatorPrincipal;
  /** Runs `effect` in a transaction and writes its audit row in the same transaction. */
  audited<T>(
    action: string,
    status: number | ((result: T) => number),
    effect: (trx: Knex.Transaction) => Promise<{ result: T; details: Record<string, unknown> }>,
  ): Promise<T>;
}

const DEFAULT_LIST_LIMIT = 100;
// 201 when the call added the invite or suppression, 200 when it was already there.
const createdStatus = (result: { created: boolean }) => (result.created ? 201 : 200);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY_PREFIX = /^[A-Za-z0-9]{12}$/;

/**
 * Registers the operator admin API under `/admin/*`. Every route authenticates an operator key first
 * (before reading a body); mutations write an `audit_events` row (actor `operator:<prefix>`) in the
 * transaction of their effect and answer with its `audit_id`. These routes are not part of the public
 * interface: they appear in no discovery document (/capabilities, /openapi.json, /llms.txt, MCP).
 *
 * Idempotency: no admin route requires an Idempotency-Key. Approve, block, activate, deactivate, the
 * access mode, invites and suppressions are state sets (repeating one changes nothing and says
 * `changed: false`); revoke is one-way. Creating an operator key is the one non-idempotent call: the
 * admin client never retries it, and a lost answer leaves a labelled key the operator can revoke.
 */
export function registerAdminRoutes(router: Router<GatewayState>, options: AdminRouteOptions): void {
  const { knex } = options;
  const parseBody = jsonBody(options.bodyLimitBytes);

  const route =
    (handler: (call: AdminCall) => Promise<void>, withBody = false) =>
    async (ctx: Context) => {
      let operator: OperatorPrincipal;
      try {
        operator = await authenticateOperator(knex, ctx.get('authorization') || undefined);
      } catch (thrown) {
        // Refused before the body is read: the connection closes instead of draining the body.
        throw refusedBeforeBody(ctx, thrown);
      }
      if (withBody) await parseBody(ctx, async () => {});
      const call: AdminCall = {
        ctx,
        operator,
        async audited(action, status, effect) {
          const { auditId, requestId } = ctx.state;
          const done = await runOperatorAction(
            knex,
            { auditId, requestId, operator, action, httpStatus: status },
            effect,
          );
          ctx.status = done.httpStatus;
          return done.result;
        },
      };
      await handler(call);
    };
  const reply = (ctx: Context, body: Record<string, unknown>, withAudit = false) => {
    ctx.body = withAudit ? { ...body, audit_id: ctx.state.auditId } : body;
  };

  // Operator keys.
  router.get(
    '/admin/operator-keys',
    route(async ({ ctx }) => reply(ctx, { operator_keys: await listOperatorKeys(knex) })),
  );
  router.post(
    '/admin/operator-keys',
    route(async (call) => {
      const body = validateAdminInput('createOperatorKey', call.ctx.state.body);
      const created = await call.audited('operator_key.create', 201, async (trx) => {
        const result = await createOperatorKey(trx, { label: body.label });
        return { result, details: { created_prefix: result.key.prefix, label: body.label ?? null } };
      });
      reply(call.ctx, { key: created.key, token: created.token }, true);
    }, true),
  );
  router.post(
    '/admin/operator-keys/:prefix/revoke',
    route(async (call) => {
      const prefix = call.ctx.params.prefix ?? '';
      const key = await call.audited('operator_key.revoke', 200, async (trx) => {
        // The bootstrap lock also serializes revocations, so two revokes cannot remove the last two keys.
        await trx.raw("select pg_advisory_xact_lock(hashtext('agw.operator_key_bootstrap'))");
        const existing = KEY_PREFIX.test(prefix) ? await findOperatorKey(trx, prefix) : undefined;
        if (!existing)
          throw new GatewayError('not_found', { message: `No operator key with prefix ${prefix}.` });
        if (existing.status === 'active' && (await countActiveOperatorKeys(trx)) <= 1) {
          throw new GatewayError('conflict', {
            message: 'This is the last active operator key; revoking it would lock every operator out.',
            hint: 'Create another operator key first (`agw operator key create`), then revoke this one.',
          });
        }
        const result = await revokeOperatorKey(trx, prefix);
        return { result, details: { revoked_prefix: prefix, previous_status: existing.status } };
      });
      reply(call.ctx, { key }, true);
    }),
  );

  // Installations.
  router.get(
    '/admin/installations',
    route(async ({ ctx }) => {
      const query = validateAdminInput('installationListQuery', { ...ctx.query });
      const installations = await listInstallations(knex, {
        status: query.status,
        limit: query.limit === undefined ? DEFAULT_LIST_LIMIT : Number(query.limit),
      });
      reply(ctx, { installations });
    }),
  );
  router.get(
    '/admin/installations/:id',
    route(async ({ ctx }) => {
      const id = ctx.params.id ?? '';
      const installation = UUID.test(id) ? await findInstallation(knex, id) : undefined;
      if (!installation) throw installationNotFound(id);
      reply(ctx, { installation });
    }),
  );
  for (const [verb, decision] of [
    ['approve', 'approved'],
    ['block', 'blocked'],
  ] as const) {
    router.post(
      `/admin/installations/:id/${verb}`,
      route(async (call) => {
        const id = call.ctx.params.id ?? '';
        if (!UUID.test(id)) throw installationNotFound(id);
        const outcome = await call.audited(`installation.${verb}`, 200, (trx) =>
          decideInstallationAudited(trx, id, decision, call.operator.actor),
        );
        reply(call.ctx, { ...outcome }, true);
      }),
    );
  }

  // Organizations.
  for (const [verb, isActive] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    router.post(
      `/admin/organizations/:id/${verb}`,
      route(async (call) => {
        const id = call.ctx.params.id ?? '';
        if (!UUID.test(id))
          throw new GatewayError('not_found', { message: `No organization with id ${id}.` });
        const outcome = await call.audited(`organization.${verb}`, 200, async (trx) => {
          const result = await setOrganizationActive(trx, id, isActive);
          return { result, details: { organization_id: id, is_active: isActive, changed: result.changed } };
        });
        reply(call.ctx, { ...outcome }, true);
      }),
    );
  }

  // Access (beta): registration mode and invitations.
  router.get(
    '/admin/access',
    route(async ({ ctx }) => reply(ctx, { mode: await getAccessMode(knex) })),
  );
  router.post(
    '/admin/access',
    route(async (call) => {
      const { mode } = validateAdminInput('setAccessMode', call.ctx.state.body);
      const previous = await call.audited<AccessMode>('access.set_mode', 200, async (trx) => {
        const result = await getAccessMode(trx);
        await setAccessMode(trx, mode);
        return { result, details: { mode, previous_mode: result } };
      });
      reply(call.ctx, { mode, previous_mode: previous, changed: previous !== mode }, true);
    }, true),
  );
  router.get(
    '/admin/access/invites',
    route(async ({ ctx }) => reply(ctx, { invites: await listInvites(knex) })),
  );
  router.post(
    '/admin/access/invites',
    route(async (call) => {
      const email = normalizeEmail(validateAdminInput('invite', call.ctx.state.body).email);
      const outcome = await call.audited('access.invite', createdStatus, async (trx) => {
        const result = await inviteOwner(trx, email, call.operator.actor);
        return { result, details: { email, created: result.created } };
      });
      reply(call.ctx, { ...outcome }, true);
    }, true),
  );

  // Run approvals, wallets, budget policies and the audit log (admin/{approvals,wallets,policies,audit-log}.ts).
  const kit = { knex, route, reply, parseBody, facts: options.facts };
  registerApprovalRoutes(router, kit);
  registerWalletRoutes(router, kit);
  registerPolicyRoutes(router, kit);
  registerAuditRoutes(router, kit);
  registerOrganizationListRoutes(router, kit);

  // Mail suppressions.
  router.get(
    '/admin/mail-suppressions',
    route(async ({ ctx }) => reply(ctx, { suppressions: await listSuppressions(knex) })),
  );
  router.post(
    '/admin/mail-suppressions',
    route(async (call) => {
      const body = validateAdminInput('suppress', call.ctx.state.body);
      const email = normalizeEmail(body.email);
      const reason = body.reason ?? DEFAULT_SUPPRESSION_REASON;
      const outcome = await call.audited('mail.suppress', createdStatus, async (trx) => {
        const result = await addSuppression(trx, email, reason, call.operator.actor);
        return { result, details: { email, reason, created: result.created } };
      });
      reply(call.ctx, { ...outcome }, true);
    }, true),
  );
  router.post(
    '/admin/mail-suppressions/remove',
    route(async (call) => {
      const email = normalizeEmail(validateAdminInput('unsuppress', call.ctx.state.body).email);
      const removed = await call.audited('mail.unsuppress', 200, async (trx) => {
        const result = await removeSuppression(trx, email);
        return { result, details: { email, removed: result } };
      });
      reply(call.ctx, { email, removed }, true);
    }, true),
  );
}
