// Every example of /llms.txt from /register onward runs as written against a fresh gateway on the
// embedded default: the onboarding curl commands through `sh` (their idempotency keys made by the
// node one-liner the text gives), the codes read from the dev mailbox where the text says they land,
// the meta-tool and paid-sequence bodies posted to the endpoints the text names. Only the text's
// `<...>` placeholders are replaced, with what the earlier steps answered (as the text tells an agent);
// the operator's steps (approve the installation, credit the wallet) are done with the admin client.
// The walk-throughs per domain run in llms-txt-walkthrough.test.ts.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createAdminClient } from '@agw/client/admin';
import { extractOtpFromBody } from '@agw/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from './helpers/gateway.js';
import { readDevMailbox, waitUntil } from './helpers/mail-sink.js';

const gateway = useGateway();
const run = promisify(execFile);
// biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by the assertions below.
type Json = any;

let text: string;
beforeAll(async () => {
  const served = await (await fetch(`${gateway.url}/llms.txt`)).text();
  // The text names PUBLIC_BASE_URL; the test gateway listens on an ephemeral port behind it.
  const base = /Base URL: (\S+)/.exec(served)?.[1];
  if (base === undefined) throw new Error('llms.txt names no base URL');
  text = served.replaceAll(base, gateway.url);
});

/** The text of one `## ` section. */
function section(heading: string): string {
  const start = text.indexOf(`## ${heading}`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 3);
  return text.slice(start, end === -1 ? undefined : end);
}

/**
 * The shell commands of a section as written: a `curl` line and its continuation lines (a trailing
 * backslash, or a single-quoted argument still open).
 */
function curlCommands(part: string): string[] {
  const commands: string[] = [];
  const lines = part.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!lines[i]?.trimStart().startsWith('curl ')) continue;
    let command = lines[i]?.trim() ?? '';
    const open = () => (command.match(/'/g)?.length ?? 0) % 2 === 1 || command.endsWith('\\');
    while (open() && i + 1 < lines.length) {
      i += 1;
      command += `\n${lines[i]}`;
    }
    commands.push(command);
  }
  return commands;
}

/** The JSON examples of a text: from a line starting with `{` until what was read parses. */
function jsonExamples(part: string): string[] {
  const examples: string[] = [];
  const lines = part.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!lines[i]?.trimStart().startsWith('{"')) continue;
    let body = lines[i]?.trim() ?? '';
    for (;;) {
      try {
        JSON.parse(body);
        break;
      } catch {
        i += 1;
        if (i >= lines.length) throw new Error(`unterminated JSON example: ${body}`);
        body += lines[i]?.trim();
      }
    }
    examples.push(body);
  }
  return examples;
}

/** Runs a command in sh with the placeholders replaced; the JSON it printed. */
async function shell(command: string, values: Record<string, string>): Promise<Json> {
  let sent = command;
  for (const [placeholder, value] of Object.entries(values)) sent = sent.replaceAll(placeholder, value);
  expect(sent).not.toMatch(/<[a-z_. ]+>/);
  const { stdout } = await run('sh', ['-c', sent], { env: { PATH: process.env.PATH ?? '' } });
  return JSON.parse(stdout);
}

async function post(path: string, body: string, key: string): Promise<Json> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body,
  });
  return response.json();
}

describe('/llms.txt run as written', () => {
  it('onboards and uses the meta-tools and the paid sequence', async () => {
    const admin = createAdminClient({ baseUrl: gateway.url, operatorKey: gateway.operatorKey });
    const values: Record<string, string> = {};

    // Onboarding: register, organizations, owner code, agent code, poll.
    const onboarding = curlCommands(section('Onboarding, step by step'));
    expect(
      onboarding.map(
        (c) => /\/(register|organizations|owner-otp\/claim|agent-otp\/verify|org\/current)/.exec(c)?.[1],
      ),
    ).toEqual(['register', 'organizations', 'owner-otp/claim', 'agent-otp/verify', 'org/current']);
    for (const command of onboarding) expect(command).not.toContain('uuidgen');
    const [register, organizations, ownerClaim, agentVerify, poll] = onboarding as [
      string,
      string,
      string,
      string,
      string,
    ];
    const registered = await shell(register, values);
    expect(registered.bootstrap_key.token).toMatch(/^agw_/);
    values['<bootstrap_key.token>'] = registered.bootstrap_key.token;
    const created = await shell(organizations, values);
    expect(created).toMatchObject({ owner_otp_delivery: { status: expect.any(String) } });
    values['<installation_key.token>'] = created.installation_key.token;
    // Step 5's rule: before the codes are redeemed /org/current answers 412, after them 200 `pending`.
    const early = await shell(poll, values);
    expect(early.error.code).toBe('precondition_failed');

    // The codes land in the dev mailbox, DATA_DIR/mail/*.eml, as the text says.
    const mails = async () => readDevMailbox(gateway.dataDir);
    const ownerMail = await waitUntil(async () =>
      (await mails()).find((m) => m.to.includes('owner@example.com')),
    );
    values['<code from the owner>'] = extractOtpFromBody(ownerMail.body) ?? 'none';
    const claimed = await shell(ownerClaim, values);
    expect(claimed.installation.owner_verified_at).toEqual(expect.any(String));
    const correlation = created.agent_otp_delivery.correlation_id as string;
    const agentMail = await waitUntil(async () =>
      (await mails()).find((m) => m.subject.includes(`Ref: ${correlation}`)),
    );
    // The text's extraction rule, verbatim.
    const rule = /regex `(.+?)`, multiline/.exec(text)?.[1] ?? '';
    const agentCode = new RegExp(rule, 'm').exec(agentMail.body)?.groups?.otp;
    expect(agentCode).toEqual(expect.any(String));
    values['<code from the mail>'] = agentCode as string;
    const verified = await shell(agentVerify, values);
    expect(verified.error).toBeUndefined();

    const pending = await shell(poll, values);
    expect(pending.installation.operator_approval_status).toBe('pending');
    await admin.approveInstallation(created.installation.id);
    const approved = await shell(poll, values);
    expect(approved.installation.operator_approval_status).toBe('approved');
    const key = values['<installation_key.token>'] as string;

    // The paid sequence's budget check: refused until the operator credits the empty wallet.
    const [budgetCheck] = jsonExamples(section('The paid sequence'));
    expect(budgetCheck).toBeDefined();
    const unfunded = await post('/mcp/invoke', budgetCheck as string, key);
    expect(unfunded).toMatchObject({ status: 'succeeded', result: { allowed: false } });
    await admin.creditWallet(created.organization.id, { amount: '10' });

    // The four meta-tools, each example body posted to the endpoint its bullet names.
    const tools = section('The four meta-tools').split('\n- POST ').slice(1);
    const answers: Record<string, Json> = {};
    for (const tool of tools) {
      const path = new URL(tool.split(' ')[0] as string).pathname;
      const [body] = jsonExamples(tool);
      expect(body, path).toBeDefined();
      answers[path] = await post(path, body as string, key);
    }
    expect(Object.keys(answers)).toEqual([
      '/mcp/search_capabilities',
      '/mcp/describe',
      '/mcp/dry_run',
      '/mcp/invoke',
    ]);
    const found = answers['/mcp/search_capabilities'];
    expect(found.total).toBeGreaterThan(0);
    expect(found.results.every((r: Json) => r.domain === 'billing')).toBe(true);
    expect(answers['/mcp/describe']).toMatchObject({
      id: 'billing.document.create_draft',
      input_schema: expect.any(Object),
      output_schema: expect.any(Object),
      dry_run: 'supported',
    });
    expect(answers['/mcp/dry_run']).toMatchObject({
      valid: true,
      violations: [],
      estimated_cost: { amount_max: expect.any(Number) },
    });
    expect(answers['/mcp/invoke']).toMatchObject({
      status: 'succeeded',
      result: { status: 'draft', totals: { total: 300 } },
    });
    const funded = await post('/mcp/invoke', budgetCheck as string, key);
    expect(funded).toMatchObject({ status: 'succeeded', result: { allowed: true } });
  });
});
