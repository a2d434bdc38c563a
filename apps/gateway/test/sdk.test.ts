// The typed SDK (@agw/client) against the real gateway: onboard() with both codes read from the dev
// mailbox and the operator approving through @agw/client/admin while the SDK waits (fake clock: the
// polling rule runs in virtual time), then typed invokes and the spec's paid sequence through all nine
// guards, a kill switch that stops the sequence before anything runs, and errors that never carry the key.
import { createClient, GatewayError } from '@agw/client';
import { createAdminClient } from '@agw/client/admin';
import { extractOtpFromBody } from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import { registration } from './helpers/access-client.js';
import { useGateway } from './helpers/gateway.js';
import { readDevMailbox, waitUntil } from './helpers/mail-sink.js';

const gateway = useGateway();

async function mailedCode(to: string): Promise<string> {
  return waitUntil(async () => {
    const mail = (await readDevMailbox(gateway.dataDir)).find((message) => message.to.includes(to));
    return mail === undefined ? undefined : (extractOtpFromBody(mail.body) ?? undefined);
  });
}

/** Onboards with the SDK; the operator approves after the SDK's first poll saw `pending`. */
async function onboardWithSdk() {
  let clock = Date.parse('2026-11-22T09:00:00Z');
  // Virtual time runs ahead of real time: a wait also lets the operator's approval finish, so the
  // poll after it sees the decision (as it would after a real 60 s wait).
  let approving: Promise<unknown> | undefined;
  const client = createClient({
    baseUrl: gateway.url,
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
      await approving;
    },
  });
  const admin = createAdminClient({ baseUrl: gateway.url, operatorKey: gateway.operatorKey });
  const body = registration({ agent: true });
  const events: string[] = [];
  let installationId = '';
  const result = await client.onboard({
    register: body,
    organization: { name: `Org of ${body.app.slug}` },
    getOwnerOtp: () => mailedCode(body.owner_email),
    getAgentOtp: () => mailedCode(body.agent_email as string),
    onStatus: (event) => {
      events.push(event.type);
      if (event.type === 'organization_created') installationId = event.installationId;
      if (event.type === 'approval_poll') approving = admin.approveInstallation(installationId);
    },
  });
  return { client, result, events, startedAt: clock };
}

describe('@agw/client against the gateway', () => {
  it('onboard() registers, redeems both mailed codes, waits for the operator and ends approved', async () => {
    const { client, result, events } = await onboardWithSdk();
    expect(events).toEqual([
      'registered',
      'organization_created',
      'owner_otp_claimed',
      'agent_otp_verified',
      'approval_wait_started',
      'approval_poll',
      'approved',
    ]);
    expect(result.installation.operator_approval_status).toBe('approved');
    const current = await client.currentOrg();
    expect(current.organization.id).toBe(result.organization.id);
  });

  it('a typed invoke returns the typed result of core.org.current.get', async () => {
    const { client, result } = await onboardWithSdk();
    const answer = await client.invoke('core.org.current.get', {});
    expect(answer.status).toBe('succeeded');
    expect(answer.result?.organization.id).toBe(result.organization.id);
  });

  it('runPaidCapability runs describe → dry_run → budget check → invoke, each audited', async () => {
    const { client } = await onboardWithSdk();
    const run = await client.runPaidCapability('core.org.current.get', {});
    expect(run.dryRun.valid).toBe(true);
    expect(run.budget.result?.allowed).toBe(true);
    expect(run.invocation.status).toBe('succeeded');
    const auditIds = [run.dryRun.audit_id, run.budget.audit_id, run.invocation.audit_id];
    const rows = await gateway.knex('audit_events').whereIn('audit_id', auditIds);
    expect(rows).toHaveLength(3);
  });

  it('with the kill switch on, the paid sequence is refused (403 forbidden, a hint naming the operator) and nothing runs', async () => {
    const { client, result } = await onboardWithSdk();
    await gateway
      .knex('policy_profiles')
      .insert({ organization_id: result.organization.id, kill_switch: true });
    const error = await client
      .runPaidCapability('core.org.current.get', {})
      .catch((caught: unknown) => caught);
    expect(GatewayError.isGatewayError(error)).toBe(true);
    expect((error as GatewayError).code).toBe('forbidden');
    expect((error as GatewayError).hint).toMatch(/operator/);
    // The kill switch refuses at the policy guard, which dry_run runs too: nothing is invoked at all.
    expect(await countInvokes(result.organization.id, 'wallet.agent_budget.guard.check')).toBe(0);
    expect(await countInvokes(result.organization.id, 'core.org.current.get')).toBe(0);
  });

  it('a refused key surfaces as a typed GatewayError without the key in it', async () => {
    const { result } = await onboardWithSdk();
    const wrong = `${result.installationKey.token.slice(0, -6)}AAAAAA`;
    const client = createClient({ baseUrl: gateway.url, apiKey: wrong, maxRetries: 0 });
    const error = await client.invoke('core.org.current.get', {}).catch((caught: unknown) => caught);
    expect(GatewayError.isGatewayError(error)).toBe(true);
    expect((error as GatewayError).status).toBe(401);
    const secret = wrong.split('.')[1] as string;
    expect(JSON.stringify(error)).not.toContain(secret);
    expect(String((error as Error).stack)).not.toContain(secret);
  });
});

/** Invoke records (decisions and outcomes) of one capability in one organization. */
async function countInvokes(organizationId: string, capabilityId: string): Promise<number> {
  const row = await gateway
    .knex('audit_events')
    .where({ action: 'capability.invoke' })
    .whereRaw("details->>'organization_id' = ?", [organizationId])
    .whereRaw("details->>'target_id' = ?", [capabilityId])
    .count('* as n')
    .first();
  return Number(row?.n);
}
