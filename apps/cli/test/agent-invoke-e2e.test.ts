// `agw dry-run` and `agw invoke` against the real in-process gateway (the whole nine-guard chain), as
// an agent whose installation the operator approved with `agw installations approve`: a read
// capability, params from a file, schema violations shown with their JSON Pointer, the gateway's
// refusals mapped to exit codes, the installation key never printed, and a PDF written with --out.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../src/commands/invoke.js';
import { walletCredit } from '../src/commands/wallet.js';
import { type ApprovedAgent, onboardApprovedAgent } from './helpers/approved-agent.js';
import { runCli } from './helpers/run-cli.js';
import { captureContext, startTestGateway, type TestGateway } from './helpers/test-gateway.js';

let test: TestGateway;
let configHome: string;
let agent: ApprovedAgent;

beforeAll(async () => {
  test = await startTestGateway();
  configHome = await mkdtemp(join(tmpdir(), 'agw-cli-invoke-'));
  agent = await onboardApprovedAgent(test, configHome);
});

afterAll(async () => {
  await test?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli([...args, '--profile', agent.profile], agent.env);

describe('agw dry-run / invoke against the gateway', () => {
  it('invoke core.org.current.get returns the organization the operator approved', async () => {
    const result = await cli(['invoke', 'core.org.current.get', '{}', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({
      status: 'succeeded',
      capability_id: 'core.org.current.get',
      result: { organization: { name: agent.organizationName } },
    });
    expect(answer.audit_id).toMatch(/\S+/);
    expect(result.stdout).not.toContain(agent.key);
  });

  it('invoke reads params from @file; the human output shows the status and the result', async () => {
    const file = join(configHome, 'budget.json');
    await writeFile(
      file,
      JSON.stringify({ capability_id: 'core.org.current.get', estimated_cost_credits: 0 }),
    );
    const result = await cli(['invoke', 'wallet.agent_budget.guard.check', `@${file}`]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/status\s+succeeded/);
    expect(result.stdout).toContain('"allowed": true');
    expect(result.stdout).not.toContain(agent.key);
  });

  it('dry-run of valid params says valid', async () => {
    const result = await cli(['dry-run', 'core.org.current.get', '{}']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/valid\s+yes/);
  });

  it('dry-run of bad params lists each violation with its JSON Pointer (exit 0: the answer is the report)', async () => {
    const result = await cli([
      'dry-run',
      'wallet.agent_budget.guard.check',
      '{"estimated_cost_credits": -1}',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/valid\s+no/);
    expect(result.stdout).toContain('/estimated_cost_credits');
    expect(result.stdout).toContain('/capability_id');
  });

  it('invoke of bad params exits 5 with the gateway code and the pointer', async () => {
    const result = await cli([
      'invoke',
      'wallet.agent_budget.guard.check',
      '{"estimated_cost_credits": "x"}',
    ]);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('validation_failed');
    expect(result.stderr).toContain('/estimated_cost_credits: must be number');
    expect(result.stderr).toContain("/capability_id: must have required property 'capability_id'");
    expect(result.stderr).not.toContain(agent.key);
  });

  it('invoke of an unknown capability exits 5 and names the nearest ids', async () => {
    const result = await cli(['invoke', 'core.org.current.gett', '{}']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('core.org.current.get');
  });

  it('a revoked or wrong key exits 3', async () => {
    const result = await runCli(['invoke', 'core.org.current.get', '{}'], {
      ...agent.env,
      AGW_KEY: `${agent.key.slice(0, -4)}AAAA`,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).not.toContain(agent.key.slice(0, -4));
  });
});

describe('agw invoke --out', () => {
  let documentId = '';

  /** One invoke in this process (setup: quicker than a spawned CLI), its answer's result. */
  async function invokeJson(id: string, params: unknown) {
    const run = captureContext(agent.env);
    await invoke(id, JSON.stringify(params), { profile: agent.profile, json: true }, run.context);
    return JSON.parse(run.stdout()).result;
  }

  beforeAll(async () => {
    const organizationId = (
      await test.gateway.knex('installations').where({ id: agent.installationId }).first()
    ).organization_id as string;
    await walletCredit(organizationId, '5', {}, captureContext(test.env).context);
    await invokeJson('billing.profile.save', {
      display_name: 'Acme',
      issuer_name: 'Acme GmbH',
      issuer_country: 'DE',
    });
    const account = await invokeJson('billing.account.save', { name: 'Muster GmbH', country_code: 'DE' });
    const draft = await invokeJson('billing.document.create_draft', {
      document_type: 'quote',
      document_date: '2026-11-26',
      account_id: account.account.id,
      lines: [{ item_name: 'Consulting', quantity: 2, unit_price: 150, tax_percent: 19 }],
    });
    documentId = draft.document_id;
  });

  it('writes the decoded PDF and prints its path and size instead of the base64', async () => {
    const out = join(configHome, 'quote.pdf');
    const params = JSON.stringify({ document_id: documentId });
    const result = await cli(['invoke', 'billing.document.pdf', params, '--out', out]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const pdf = await readFile(out);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const kb = (pdf.length / 1024).toFixed(1);
    expect(result.stdout).toContain(`wrote ${out} (${kb} KB)`);
    expect(result.stdout).toContain(`"pdf_base64": "<written to ${out}>"`);
    expect(result.stdout.length).toBeLessThan(2000);

    // An existing file is kept unless --force (refused before the request, so nothing is charged).
    const again = captureContext(agent.env);
    const flags = { profile: agent.profile, out };
    await expect(invoke('billing.document.pdf', params, flags, again.context)).rejects.toMatchObject({
      exitCode: 2,
      message: `${out} already exists; pass --force to overwrite it`,
    });
    const forced = captureContext(agent.env);
    await invoke('billing.document.pdf', params, { ...flags, force: true }, forced.context);
    expect(forced.stdout()).toContain(`wrote ${out} (${kb} KB)`);
    expect((await stat(out)).size).toBe(pdf.length);
  });

  it('dry-run prints a quote; invoke --quote runs at that price, and with other params is refused', async () => {
    const params = JSON.stringify({ document_id: documentId });
    const dry = await cli(['dry-run', 'billing.document.pdf', params]);
    expect(dry.code).toBe(0);
    const quote = /quote\s+(agw_q_\S+)/.exec(dry.stdout)?.[1];
    expect(quote).toBeDefined();
    expect(dry.stdout).toMatch(/quote expires\s+\d{4}-\d{2}-\d{2}T/);

    const quoted = await cli([
      'invoke',
      'billing.document.pdf',
      params,
      '--quote',
      quote as string,
      '--json',
    ]);
    expect(quoted.code).toBe(0);
    const answer = JSON.parse(quoted.stdout);
    expect(answer.status).toBe('succeeded');
    expect(Number(answer.cost.credits)).toBeGreaterThan(0);
    expect(Number(answer.cost.credits)).toBeLessThanOrEqual(0.05);

    // The quote binds its params: another document is refused before anything runs (nothing charged).
    const other = JSON.stringify({ document_id: '00000000-0000-4000-8000-000000000000' });
    const refused = await cli(['invoke', 'billing.document.pdf', other, '--quote', quote as string]);
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain('quote_invalid');
  });
});
