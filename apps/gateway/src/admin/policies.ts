import type { Router } from '@koa/router';
import type { Knex } from 'knex';
import type { GatewayState } from '../http/state.js';
import { accessStateChanged } from '../keys/state-cache.js';
import { credits } from '../ports/wallet-store.js';
import type { AdminRouteKit } from './approvals.js';
import { adminValidator } from './validation.js';
import { assertOrganization, organizationParam } from './wallets.js';

/**
 * The operator side of an organization's budget policy profile: task, daily, monthly and hourly
 * burn-rate caps (exact credit decimals, null = no cap) and the kill switch. The billing guard reads
 * the same row on every invoke, so a change applies to the next invoke.
 */

/** A policy profile as the operator sees it (an organization without a row has no caps). */
export interface PolicyView {
  readonly organization_id: string;
  readonly task_cap_credits: string | null;
  readonly daily_cap_credits: string | null;
  readonly monthly_cap_credits: string | null;
  readonly burn_rate_hourly_cap_credits: string | null;
  readonly kill_switch_enabled: boolean;
  /** Null while the organization never had a profile (the defaults apply). */
  readonly updated_at: string | null;
}

/** Body of PATCH /admin/policies/:org: only the fields present change; null clears a cap. */
export interface PolicyPatch {
  task_cap_credits?: string | null;
  daily_cap_credits?: string | null;
  monthly_cap_credits?: string | null;
  burn_rate_hourly_cap_credits?: string | null;
  kill_switch_enabled?: boolean;
}

// A cap is a non-negative decimal within numeric(20,6); 0 is allowed and means "nothing may be spent".
const cap = {
  anyOf: [{ type: 'string', pattern: '^(?:0|[1-9][0-9]{0,13})(?:\\.[0-9]{1,6})?$' }, { type: 'null' }],
};

export const validatePolicyPatch = adminValidator<PolicyPatch>({
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    task_cap_credits: cap,
    daily_cap_credits: cap,
    monthly_cap_credits: cap,
    burn_rate_hourly_cap_credits: cap,
    kill_switch_enabled: { type: 'boolean' },
  },
});

const COLUMN: Record<Exclude<keyof PolicyPatch, 'kill_switch_enabled'>, string> = {
  task_cap_credits: 'task_cap',
  daily_cap_credits: 'daily_cap',
  monthly_cap_credits: 'monthly_cap',
  burn_rate_hourly_cap_credits: 'burn_rate_hourly_cap',
};

interface PolicyRow {
  task_cap: string | null;
  daily_cap: string | null;
  monthly_cap: string | null;
  burn_rate_hourly_cap: string | null;
  kill_switch: boolean;
  updated_at: Date;
}

const capView = (value: string | null) => (value === null ? null : credits(value));

/** The policy of `organizationId` (404 for an unknown organization). */
export async function showPolicy(knex: Knex | Knex.Transaction, organizationId: string): Promise<PolicyView> {
  await assertOrganization(knex, organizationId);
  const row = (await knex('policy_profiles').where({ organization_id: organizationId }).first()) as
    | PolicyRow
    | undefined;
  return {
    organization_id: organizationId,
    task_cap_credits: capView(row?.task_cap ?? null),
    daily_cap_credits: capView(row?.daily_cap ?? null),
    monthly_cap_credits: capView(row?.monthly_cap ?? null),
    burn_rate_hourly_cap_credits: capView(row?.burn_rate_hourly_cap ?? null),
    kill_switch_enabled: row?.kill_switch === true,
    updated_at: row ? row.updated_at.toISOString() : null,
  };
}

/** What a PATCH did: the profile before and after, and whether anything changed. */
export interface PolicyChange {
  readonly policy: PolicyView;
  readonly previous: PolicyView;
  readonly changed: boolean;
}

/** {@link patchPolicy} with what its `policy.set` audit record says (the admin API's and the console's). */
export async function patchPolicyAudited(
  trx: Knex.Transaction,
  organizationId: string,
  patch: PolicyPatch,
): Promise<{ result: PolicyChange; details: Record<string, unknown> }> {
  const result = await patchPolicy(trx, organizationId, patch);
  return {
    result,
    details: { organization_id: organizationId, patch, previous: result.previous, changed: result.changed },
  };
}

/**
 * Applies `patch` (a state set: the same patch again changes nothing and says `changed: false`).
 * Upserts the row, so the first patch of an organization creates its profile.
 */
export async function patchPolicy(
  trx: Knex.Transaction,
  organizationId: string,
  patch: PolicyPatch,
): Promise<PolicyChange> {
  await assertOrganization(trx, organizationId);
  await trx('policy_profiles')
    .where({ organization_id: organizationId })
    .forUpdate()
    .first('organization_id');
  const previous = await showPolicy(trx, organizationId);
  const values: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(COLUMN)) {
    const value = patch[field as keyof typeof COLUMN];
    if (value !== undefined) values[column] = value;
  }
  if (patch.kill_switch_enabled !== undefined) values.kill_switch = patch.kill_switch_enabled;
  const unchanged = Object.entries(patch).every(
    ([field, value]) =>
      (previous as unknown as Record<string, unknown>)[field] ===
      (typeof value === 'string' ? credits(value) : value),
  );
  if (unchanged) return { policy: previous, previous, changed: false };
  await trx('policy_profiles')
    .insert({ organization_id: organizationId, ...values })
    .onConflict('organization_id')
    .merge({ ...values, updated_at: trx.fn.now() });
  // The invoke chain caches the kill switch (src/keys/state-cache.ts).
  if (patch.kill_switch_enabled !== undefined) accessStateChanged(trx);
  return { policy: await showPolicy(trx, organizationId), previous, changed: true };
}

/** GET /admin/policies/:org and PATCH (or POST, for clients without PATCH) /admin/policies/:org. */
export function registerPolicyRoutes(router: Router<GatewayState>, kit: AdminRouteKit): void {
  const { knex, route, reply } = kit;
  router.get(
    '/admin/policies/:organization_id',
    route(async ({ ctx }) => reply(ctx, { policy: await showPolicy(knex, organizationParam(ctx)) })),
  );
  const set = route(async (call) => {
    const id = organizationParam(call.ctx);
    const patch = validatePolicyPatch(call.ctx.state.body);
    const outcome = await call.audited('policy.set', 200, (trx) => patchPolicyAudited(trx, id, patch));
    reply(call.ctx, { ...outcome }, true);
  }, true);
  router.patch('/admin/policies/:organization_id', set);
  router.post('/admin/policies/:organization_id', set);
}
