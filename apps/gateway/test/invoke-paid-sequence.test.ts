// POST /mcp/dry_run and /mcp/invoke over real HTTP on the default catalog (the capabilities that have a
// handler): the spec's paid sequence end to end, the onboarding gates (401, 412, 403), scopes, schema
// violations, unknown ids, a dry run that writes nothing but its audit record, and audit ids that
// point at real audit rows.

import { capabilityHandlers } from '@agw/capabilities';
import { capabilityContracts } from '@agw/contracts';
import { issueKey } from '@agw/gateway';
import { describe, expect, it } from 'vitest';
import { type Answer, onboard } from './helpers/access-client.js';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';
import { waitUntil } from './helpers/mail-sink.js';

// Every spec capability has a handler by now: this gateway runs all but one, to show how a gateway
// answers for a capability of the spec it does not run.
const NOT_RUN = 'assist.artifact.read';
const gateway = useGateway({
  handlers: capabilityHandlers.filter((handler) => handler.contract.id !== NOT_RUN),
});

/** Onboards over HTTP; `state` sets the owner code and the operator decision in the tables. */
async function installation(state: 'fresh' | 'pending' | 'approved' | 'blocked') {
  const flow = await onboard(gateway.client);
  if (state !== 'fresh') {
    await gateway.knex('installations').where({ id: flow.installationId }).update({
      owner_verified_at: gateway.knex.fn.now(),
      operator_approval_status: state,
    });
  }
  const row = await gateway.knex('installations').where({ id: flow.installationId }).first();
  return {
    key: flow.installationKey,
    installationId: flow.installationId,
    organizationId: row.organization_id as string,
  };
}

async function call(path: string, body: unknown, key?: string): Promise<Answer> {
  const answer = await gateway.client.post(path, body, { idem: null, ...(key ? { key } : {}) });
  const schemas = {
    '/mcp/describe': 'CapabilityDescription',
    '/mcp/dry_run': 'DryRunResponse',
    '/mcp/invoke': 'InvokeResponse',
  } as const;
  const schema = answer.status === 200 ? schemas[path as keyof typeof schemas] : 'ErrorEnvelope';
  expectSchema(schema, answer.json);
  return answer;
}

async function auditRow(auditId: string) {
  return gateway.knex('audit_events').where({ audit_id: auditId }).first();
}

describe('the paid sequence', () => {
  it('describe → dry_run → budget check → invoke, each answer audited', async () => {
    const { key, organizationId } = await installation('approved');
    await gateway.knex('wallets').insert({ organization_id: organizationId, balance: '12.5' });
    await gateway.knex('policy_profiles').insert({ organization_id: organizationId, daily_cap: '5' });

    const described = await call('/mcp/describe', { id: 'core.org.current.get' }, key);
    expect(described.status).toBe(200);

    const simulated = await call('/mcp/dry_run', { id: 'core.org.current.get', params: {} }, key);
    expect(simulated.status).toBe(200);
    expect(simulated.json).toMatchObject({
      valid: true,
      capability_id: 'core.org.current.get',
      resolved_version: '1.0.0',
      would_require_approval: false,
      estimated_cost: { amount_max: 0 },
      effects: [],
    });
    expect((await auditRow(simulated.json.audit_id))?.outcome).toBe('simulated');

    const budget = await call(
      '/mcp/invoke',
      {
        id: 'wallet.agent_budget.guard.check',
        params: {
          capability_id: 'core.org.current.get',
          estimated_cost_credits: simulated.json.estimated_cost.amount_max,
          window: 'task',
        },
      },
      key,
    );
    expect(budget.status).toBe(200);
    expect(budget.json.status).toBe('succeeded');
    expect(budget.json.result).toEqual({
      allowed: true,
      organization_id: organizationId,
      wallet_balance_credits: '12.5',
      estimated_cost_credits: 0,
      policy: {
        policy_profile_id: expect.any(String),
        task_cap_credits: null,
        daily_cap_credits: '5',
        monthly_cap_credits: null,
        burn_rate_hourly_cap_credits: null,
        kill_switch_enabled: false,
      },
      ledger: { hour_cost_credits: '0', today_cost_credits: '0', month_cost_credits: '0' },
      reason: null,
    });

    const invoked = await call('/mcp/invoke', { id: 'core.org.current.get', params: {} }, key);
    expect(invoked.status).toBe(200);
    expect(invoked.json).toMatchObject({
      interface_version: '1.0',
      status: 'succeeded',
      capability_id: 'core.org.current.get',
      resolved_version: '1.0.0',
      result: { organization: { id: organizationId, is_active: true } },
    });
    expect(invoked.json).not.toHaveProperty('cost');
    const row = await auditRow(invoked.json.audit_id);
    expect(row).toMatchObject({ action: 'capability.invoke', outcome: 'succeeded', http_status: 200 });
    expect(row.actor).toBe(
      `installation:${(await gateway.knex('installations').where({ organization_id: organizationId }).first()).id}`,
    );
  });

  it('says not allowed when the estimate breaks a cap, and when the wallet is empty', async () => {
    const { key, organizationId } = await installation('approved');
    const check = (estimate: number) =>
      call(
        '/mcp/invoke',
        {
          id: 'wallet.agent_budget.guard.check',
          params: { capability_id: 'core.org.current.get', estimated_cost_credits: estimate },
        },
        key,
      );
    // A new organization has no wallet row: balance 0, no caps.
    const empty = await check(0.01);
    expect(empty.json.result).toMatchObject({ allowed: false, wallet_balance_credits: '0' });
    expect(empty.json.result.policy.policy_profile_id).toBeNull();
    await gateway.knex('wallets').insert({ organization_id: organizationId, balance: '100' });
    await gateway.knex('policy_profiles').insert({ organization_id: organizationId, task_cap: '2' });
    expect((await check(2)).json.result.allowed).toBe(true);
    expect((await check(2.5)).json.result).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/task cap/),
    });
  });
});

describe('refusals', () => {
  const orgGet = { id: 'core.org.current.get', params: {} };

  it('401 without a key, on both routes', async () => {
    expectEnvelope((await call('/mcp/invoke', orgGet)).json, 'unauthenticated');
    expectEnvelope((await call('/mcp/dry_run', orgGet)).json, 'unauthenticated');
  });

  it('412 until the owner code is claimed and until the operator approves', async () => {
    const fresh = await installation('fresh');
    const early = await call('/mcp/invoke', orgGet, fresh.key);
    expect(early.status).toBe(412);
    expectEnvelope(early.json, 'precondition_failed');
    const pending = await installation('pending');
    const waiting = await call('/mcp/dry_run', orgGet, pending.key);
    expect(waiting.status).toBe(412);
    expect((await auditRow(waiting.json.error.audit_id))?.outcome).toBe('denied');
  });

  it('403 installation_blocked for a blocked installation', async () => {
    const { key } = await installation('blocked');
    const answer = await call('/mcp/invoke', orgGet, key);
    expect(answer.status).toBe(403);
    expectEnvelope(answer.json, 'installation_blocked');
  });

  it('403 scope_missing for a key without the capability scope', async () => {
    const { installationId, organizationId } = await installation('approved');
    const narrow = await gateway.knex.transaction(
      async (trx) =>
        (
          await issueKey(trx, {
            kind: 'installation',
            scopes: ['core:read'],
            ttlSeconds: 3600,
            installationId,
            organizationId,
          })
        ).token,
    );
    expect((await call('/mcp/invoke', orgGet, narrow)).status).toBe(200);
    const answer = await call(
      '/mcp/invoke',
      {
        id: 'wallet.agent_budget.guard.check',
        params: { capability_id: 'a.b.c', estimated_cost_credits: 1 },
      },
      narrow,
    );
    expect(answer.status).toBe(403);
    expectEnvelope(answer.json, 'scope_missing');
  });

  it('400 with a schema_pointer under /params; dry_run answers valid: false with the violations', async () => {
    const { key } = await installation('approved');
    const bad = {
      id: 'wallet.agent_budget.guard.check',
      params: { capability_id: 'a.b.c', estimated_cost_credits: -1 },
    };
    const answer = await call('/mcp/invoke', bad, key);
    expect(answer.status).toBe(400);
    expectEnvelope(answer.json, 'validation_failed');
    expect(answer.json.error.schema_pointer).toBe('/params/estimated_cost_credits');
    const simulated = await call('/mcp/dry_run', bad, key);
    expect(simulated.status).toBe(200);
    expect(simulated.json.valid).toBe(false);
    expect(simulated.json.violations[0].schema_pointer).toBe('/params/estimated_cost_credits');
  });

  it('400 for an unknown body property, 404 for an unknown id or a spec id without a handler', async () => {
    const { key } = await installation('approved');
    expect((await call('/mcp/invoke', { ...orgGet, extra: 1 }, key)).status).toBe(400);
    const unknown = await call('/mcp/invoke', { id: 'core.org.current.gte', params: {} }, key);
    expect(unknown.status).toBe(404);
    expectEnvelope(unknown.json, 'capability_not_found');
    expect(unknown.json.error.hint).toMatch(/core\.org\.current\.get/);
    // A capability the spec defines but this gateway does not run is not in its catalog.
    expect(capabilityContracts.map((contract) => contract.id)).toContain(NOT_RUN);
    const unhandled = await call('/mcp/dry_run', { id: NOT_RUN, params: {} }, key);
    expectEnvelope(unhandled.json, 'capability_not_found');
  });
});

describe('dry_run changes no state', () => {
  it('leaves every table but the audit log with the same rows', async () => {
    const { key, organizationId } = await installation('approved');
    await gateway.knex('wallets').insert({ organization_id: organizationId, balance: '3' });
    const snapshot = async () => {
      const tables = (await gateway
        .knex('pg_tables')
        .where({ schemaname: 'public' })
        .pluck('tablename')) as string[];
      const counts: Record<string, string> = {};
      // The audit log's own tables (audit_events, its chain and seal queue) are the one thing a dry run writes.
      for (const table of tables.filter((name) => !name.startsWith('audit_')).sort()) {
        const rows = await gateway.knex(table).select('*');
        counts[table] = JSON.stringify(rows);
      }
      return counts;
    };
    // Onboarding mail leaves the outbox after the response; let it settle so only dry_run could move rows.
    await waitUntil(async () => {
      const queued = await gateway.knex('mail_outbox').where({ status: 'queued' }).first();
      return queued === undefined ? true : undefined;
    });
    const before = await snapshot();
    const auditsBefore = Number((await gateway.knex('audit_events').count('* as n').first())?.n);
    for (const id of ['core.org.current.get', 'wallet.agent_budget.guard.check']) {
      const params =
        id === 'core.org.current.get' ? {} : { capability_id: 'a.b.c', estimated_cost_credits: 1 };
      expect((await call('/mcp/dry_run', { id, params }, key)).json.valid).toBe(true);
    }
    expect(await snapshot()).toEqual(before);
    const auditsAfter = Number((await gateway.knex('audit_events').count('* as n').first())?.n);
    expect(auditsAfter).toBe(auditsBefore + 2);
  });
});
