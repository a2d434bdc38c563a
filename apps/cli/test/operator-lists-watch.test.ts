// Issue 29, build 3 and 4 in the CLI: `agw approvals show` prints the params masked as the console
// shows them, the estimated cost and the preflight verdict; `agw orgs list` and `agw wallets list`
// (table and --json); `agw approvals list --watch` prints each new pending approval once, ends on SIGINT.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CapabilityContract, capabilityContracts } from '@agw/contracts';
import type { StartOptions } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../gateway/test/helpers/mail-sink.js';
import { type ApprovedAgent, onboardApprovedAgent } from './helpers/approved-agent.js';
import { runCli, spawnCli } from './helpers/run-cli.js';
import { startTestGateway, type TestGateway } from './helpers/test-gateway.js';

const template = capabilityContracts.find((c) => c.id === 'core.org.current.get') as CapabilityContract;
const transfer = {
  contract: {
    ...template,
    id: 'demo.transfer.send',
    domain: 'demo',
    risk_level: 'high',
    cost_credits: '0.25',
    input_schema: {
      type: 'object',
      properties: { iban: { type: 'string' }, amount: { type: 'string' }, api_key: { type: 'string' } },
      additionalProperties: false,
    },
  } as unknown as CapabilityContract,
  async handle() {
    return { sent: true };
  },
};
const handlers = [transfer] as unknown as NonNullable<StartOptions['handlers']>;
const IBAN = 'DE89370400440532013000';

let test: TestGateway;
let configHome: string;
let agent: ApprovedAgent;
let org: string;

beforeAll(async () => {
  test = await startTestGateway({
    handlers,
    catalog: handlers.map((h) => h.contract) as unknown as StartOptions['catalog'],
  });
  configHome = await mkdtemp(join(tmpdir(), 'agw-cli-lists-'));
  agent = await onboardApprovedAgent(test, configHome);
  org = (await test.gateway.knex('installations').where({ id: agent.installationId }).first())
    .organization_id;
  await test.gateway.knex('wallets').insert({ organization_id: org, balance: '12.5' });
  await test.gateway
    .knex('policy_profiles')
    .insert({ organization_id: org, daily_cap: '7', kill_switch: false });
});

afterAll(async () => {
  await test?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

const operator = (args: string[]) => runCli(args, test.env);

async function pendingTransfer(amount: string): Promise<string> {
  const params = JSON.stringify({ iban: IBAN, amount, api_key: 'sk_live_very_secret' });
  const result = await runCli(
    ['invoke', 'demo.transfer.send', params, '--json', '--profile', agent.profile],
    agent.env,
  );
  expect(result.code).toBe(0);
  const answer = JSON.parse(result.stdout);
  expect(answer.status).toBe('pending_approval');
  return answer.approval.approval_id as string;
}

let shownId = '';

describe('agw approvals show', () => {
  it('prints the params with the IBAN and the key masked, the estimated cost and the preflight verdict', async () => {
    const id = await pendingTransfer('1200.00');
    const shown = await operator(['approvals', 'show', id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/iban\s+DE89 •••• 3000/);
    expect(shown.stdout).toMatch(/amount\s+1200\.00/);
    expect(shown.stdout).toMatch(/api_key\s+••••••••/);
    expect(shown.stdout).not.toContain(IBAN);
    expect(shown.stdout).not.toContain('sk_live_very_secret');
    expect(shown.stdout).toMatch(/estimated cost\s+0\.25 credits/);
    expect(shown.stdout).toMatch(/risk\s+high/);
    expect(shown.stdout).toMatch(/preflight\s+none/);
    shownId = id;
  });

  it('--json answers the same masked rows', async () => {
    const json = JSON.parse((await operator(['approvals', 'show', shownId, '--json'])).stdout);
    expect(json.approval.params).toContainEqual(
      expect.objectContaining({ label: 'iban', value: 'DE89 •••• 3000', masked: true }),
    );
    expect(json.approval).toMatchObject({ estimated_cost_credits: '0.25', preflight: { verdict: 'none' } });
  });
});

describe('agw orgs list and agw wallets list', () => {
  it('lists organizations with wallet balance, spend today, caps and kill switch (table and --json)', async () => {
    const table = await operator(['orgs', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /ID\s+NAME\s+STATE\s+BALANCE\s+SPENT TODAY\s+SPENT MONTH\s+DAILY CAP\s+MONTHLY CAP\s+KILL SWITCH/,
    );
    // No monthly cap: `none`, as `agw wallet show` prints it.
    expect(table.stdout).toMatch(
      new RegExp(`${org}\\s+.+\\s+active\\s+12\\.5\\s+0\\s+0\\s+7\\s+none\\s+off`),
    );
    const json = JSON.parse((await operator(['orgs', 'list', '--json'])).stdout);
    expect(json.organizations).toContainEqual(
      expect.objectContaining({
        id: org,
        wallet: expect.objectContaining({ balance_credits: '12.5' }),
      }),
    );
    expect(json.next_cursor).toBeNull();
  });

  it('pages with --limit and --cursor', async () => {
    await test.gateway.knex('organizations').insert([
      { name: 'Zeta GmbH', short_id: 'zeta1' },
      { name: 'Zulu AG', short_id: 'zulu1' },
    ]);
    const first = JSON.parse((await operator(['wallets', 'list', '--limit', '2', '--json'])).stdout);
    expect(first.wallets).toHaveLength(2);
    expect(typeof first.next_cursor).toBe('string');
    const table = await operator(['wallets', 'list', '--limit', '2']);
    expect(table.stdout).toMatch(/ID\s+NAME\s+STATE\s+BALANCE\s+SPENT TODAY\s+SPENT MONTH\s+DAILY CAP/);
    expect(table.stdout).toContain(`More: add --cursor ${first.next_cursor}`);
    const second = JSON.parse(
      (await operator(['wallets', 'list', '--limit', '2', '--cursor', first.next_cursor, '--json'])).stdout,
    );
    expect(second.wallets.map((wallet: { organization_name: string }) => wallet.organization_name)).toContain(
      'Zulu AG',
    );
    const everyone = [...first.wallets, ...second.wallets].map(
      (w: { organization_id: string }) => w.organization_id,
    );
    expect(new Set(everyone).size).toBe(everyone.length);
  });

  it('refuses a --limit that is not an integer 1-500 with exit 2, before any request', async () => {
    for (const [command, limit] of [
      ['orgs', 'abc'],
      ['wallets', '0'],
      ['orgs', '501'],
    ] as const) {
      const refused = await operator([command, 'list', '--limit', limit]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`--limit must be an integer 1-500, got '${limit}'`);
    }
  });
});

describe('agw approvals list --watch', () => {
  it('prints what waits, then each new approval once as it arrives; SIGINT ends it with exit 0', async () => {
    const waiting = await pendingTransfer('1.00');
    const child = spawnCli(['approvals', 'list', '--watch', '--interval', '0.2'], test.env);
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await waitUntil(() => (stdout.includes(waiting) ? true : undefined));
    const fresh = await pendingTransfer('2.00');
    await waitUntil(() => (stdout.includes(fresh) ? true : undefined));
    // A few more looks: nothing is printed twice.
    const printed = stdout;
    await waitUntil(async () => {
      const again = await operator(['approvals', 'list', '--json']);
      return JSON.parse(again.stdout).approvals.length > 0 ? true : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(stdout).toBe(printed);
    expect(stdout.split(fresh)).toHaveLength(2);
    expect(stdout.split(waiting)).toHaveLength(2);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('ends with exit 3 and the gateway’s words when the operator key is refused', async () => {
    const refused = await runCli(['approvals', 'list', '--watch', '--interval', '0.2'], {
      ...test.env,
      AGW_OPERATOR_KEY: 'agw_op_not.a-real-key',
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/HTTP 401/);
    expect(refused.stderr).toContain('audit_id');
  });
});
