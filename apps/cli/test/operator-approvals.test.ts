// `agw approvals`, `agw wallet` and `agw policy` end to end: the built binary against an in-process
// gateway that carries a high-risk test capability (no product capability with a handler is
// high-risk yet) and a paid one. An agent gets pending_approval, the operator decides with
// `agw approvals approve|deny`, and the agent's token then runs once (or is refused with 403).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CapabilityContract, capabilityContracts } from '@agw/contracts';
import type { StartOptions } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovedAgent, onboardApprovedAgent } from './helpers/approved-agent.js';
import { runCli } from './helpers/run-cli.js';
import { startTestGateway, type TestGateway } from './helpers/test-gateway.js';

const template = capabilityContracts.find((c) => c.id === 'core.org.current.get') as CapabilityContract;
let vaultRuns = 0;
const vault = {
  contract: { ...template, id: 'demo.vault.open', domain: 'demo', risk_level: 'high' } as CapabilityContract,
  async handle() {
    vaultRuns += 1;
    return { opened: true };
  },
};
const paid = {
  contract: { ...template, id: 'demo.paid.read', domain: 'demo', cost_credits: '0.5' } as CapabilityContract,
  async handle() {
    return { ok: true };
  },
};
const handlers = [vault, paid] as unknown as NonNullable<StartOptions['handlers']>;

let test: TestGateway;
let configHome: string;
let agent: ApprovedAgent;
let org: string;

beforeAll(async () => {
  test = await startTestGateway({
    handlers,
    catalog: handlers.map((h) => h.contract) as unknown as StartOptions['catalog'],
  });
  configHome = await mkdtemp(join(tmpdir(), 'agw-cli-approvals-'));
  agent = await onboardApprovedAgent(test, configHome);
  org = (await test.gateway.knex('installations').where({ id: agent.installationId }).first())
    .organization_id;
});

afterAll(async () => {
  await test?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

const asAgent = (args: string[]) => runCli([...args, '--profile', agent.profile], agent.env);
const operator = (args: string[]) => runCli(args, test.env);

async function pendingVault(): Promise<{ approval_id: string; approval_token: string }> {
  const result = await asAgent(['invoke', 'demo.vault.open', '{}', '--json']);
  expect(result.code).toBe(0);
  const answer = JSON.parse(result.stdout);
  expect(answer.status).toBe('pending_approval');
  return answer.approval;
}

describe('agw approvals', () => {
  it('pending → agw approvals approve → the agent runs it once with the token', async () => {
    const approval = await pendingVault();
    const list = await operator(['approvals', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/ID\s+STATUS\s+CAPABILITY/);
    expect(list.stdout).toContain(approval.approval_id);
    expect(list.stdout).toContain('demo.vault.open');
    expect(list.stdout).not.toContain(approval.approval_token);

    const shown = await operator(['approvals', 'show', approval.approval_id, '--json']);
    expect(JSON.parse(shown.stdout).approval).toMatchObject({
      status: 'pending',
      capability_id: 'demo.vault.open',
    });
    expect(shown.stdout).not.toMatch(/token/);

    const approved = await operator(['approvals', 'approve', approval.approval_id]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/approved \(was pending\)\. audit_id/);
    const repeat = await operator(['approvals', 'approve', approval.approval_id]);
    expect(repeat.stdout).toMatch(/already approved; nothing changed/);

    const before = vaultRuns;
    const run = await asAgent([
      'invoke',
      'demo.vault.open',
      '{}',
      '--approval-token',
      approval.approval_token,
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'succeeded', result: { opened: true } });
    const again = await asAgent([
      'invoke',
      'demo.vault.open',
      '{}',
      '--approval-token',
      approval.approval_token,
    ]);
    expect(again.code).toBe(3);
    expect(vaultRuns).toBe(before + 1);
  });

  it('deny → the token is 403 (exit 3); approving it afterwards is a conflict (exit 4)', async () => {
    const approval = await pendingVault();
    const denied = await operator([
      'approvals',
      'deny',
      approval.approval_id,
      '--reason',
      'not today',
      '--json',
    ]);
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      changed: true,
      reason: 'not today',
      approval: { status: 'denied' },
    });
    const refused = await asAgent([
      'invoke',
      'demo.vault.open',
      '{}',
      '--approval-token',
      approval.approval_token,
    ]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/approval_invalid/);
    const flip = await operator(['approvals', 'approve', approval.approval_id]);
    expect(flip.code).toBe(4);
    expect(flip.stderr).toMatch(/already denied/);
    const denies = await operator(['approvals', 'list', '--status', 'denied', '--org', org, '--json']);
    expect(JSON.parse(denies.stdout).approvals.map((a: { approval_id: string }) => a.approval_id)).toContain(
      approval.approval_id,
    );
  });

  it('an unknown approval is a gateway error (exit 5) and a bad --status a usage error', async () => {
    const unknown = await operator(['approvals', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toMatch(/not_found/);
    expect((await operator(['approvals', 'list', '--status', 'maybe'])).code).toBe(2);
  });
});

describe('agw wallet and agw policy', () => {
  it('credits, shows the balance and the ledger, and a task cap then refuses the paid invoke', async () => {
    const credit = await operator(['wallet', 'credit', org, '10.25', '--memo', 'trial']);
    expect(credit.code).toBe(0);
    expect(credit.stdout).toMatch(/Credited 10\.25 credits .* Balance 10\.25 credits/);
    expect((await asAgent(['invoke', 'demo.paid.read', '{}'])).code).toBe(0);
    const shown = await operator(['wallet', 'show', org]);
    expect(shown.stdout).toMatch(/balance\s+9\.75 credits/);
    expect(shown.stdout).toMatch(/spent today \(UTC\)\s+0\.5/);
    expect(shown.stdout).toMatch(/charge\s+-0\.5\s+demo\.paid\.read/);
    expect(shown.stdout).toMatch(/credit\s+\+10\.25/);

    const set = await operator(['policy', 'set', org, '--task-cap', '0.25', '--daily-cap', '100']);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/task cap\s+0\.25 credits/);
    const refused = await asAgent(['invoke', 'demo.paid.read', '{}']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/budget_exceeded/);
    expect(refused.stderr).toMatch(/task_cap/);

    const cleared = await operator(['policy', 'set', org, '--task-cap', 'none', '--json']);
    expect(JSON.parse(cleared.stdout).policy).toMatchObject({
      task_cap_credits: null,
      daily_cap_credits: '100',
    });
    expect((await asAgent(['invoke', 'demo.paid.read', '{}'])).code).toBe(0);
  });

  it('the kill switch stops invokes until it is off; policy show reflects it', async () => {
    expect((await operator(['policy', 'set', org, '--kill-switch', 'on'])).code).toBe(0);
    expect((await operator(['policy', 'show', org])).stdout).toMatch(/kill switch\s+on/);
    const stopped = await asAgent(['invoke', 'demo.paid.read', '{}']);
    expect(stopped.code).toBe(3);
    expect(stopped.stderr).toMatch(/kill switch/);
    expect((await operator(['policy', 'set', org, '--kill-switch', 'off'])).code).toBe(0);
    expect((await asAgent(['invoke', 'demo.paid.read', '{}'])).code).toBe(0);
  });

  it('refuses bad amounts and caps as usage errors, and gateway-refused amounts with its message', async () => {
    expect((await operator(['wallet', 'credit', org, '-5'])).code).toBe(2);
    expect((await operator(['wallet', 'credit', org, 'ten'])).code).toBe(2);
    const zero = await operator(['wallet', 'credit', org, '0']);
    expect(zero.code).toBe(5);
    expect(zero.stderr).toMatch(/\/amount/);
    expect((await operator(['policy', 'set', org, '--daily-cap', 'lots'])).code).toBe(2);
    expect((await operator(['policy', 'set', org])).code).toBe(2);
    expect((await operator(['policy', 'set', org, '--kill-switch', 'maybe'])).code).toBe(2);
  });

  it('replays a credit repeated with the same --idempotency-key', async () => {
    const key = `cli-credit-${Date.now()}-0001`;
    const first = await operator(['wallet', 'credit', org, '1', '--idempotency-key', key, '--json']);
    const second = await operator(['wallet', 'credit', org, '1', '--idempotency-key', key]);
    expect(JSON.parse(first.stdout).replayed).toBe(false);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/Already credited 1 credits/);
  });

  it('--help of every new command shows examples', async () => {
    for (const command of [
      ['approvals', 'list'],
      ['approvals', 'show'],
      ['approvals', 'approve'],
      ['approvals', 'deny'],
      ['wallet', 'show'],
      ['wallet', 'credit'],
      ['policy', 'show'],
      ['policy', 'set'],
    ]) {
      const help = await runCli([...command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`$ agw ${command.join(' ')}`);
    }
  });
});
