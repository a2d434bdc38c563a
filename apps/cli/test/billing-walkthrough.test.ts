// The quote-to-cash walk-through of docs/billing.md, run as written: every `npm run agw -- …` line of its block
// becomes the same `agw` arguments against a real gateway, with the key only in AGW_KEY (no profile)
// as the block's `export` says, the `<…>` placeholders replaced by what the step before answered, the
// operator's lines with the gateway's DATA_DIR (operator.key). It ends with the invoice `paid`.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovedAgent, onboardApprovedAgent } from './helpers/approved-agent.js';
import { runCli } from './helpers/run-cli.js';
import { startTestGateway, type TestGateway } from './helpers/test-gateway.js';

const WALKTHROUGH = fileURLToPath(new URL('../../../docs/billing.md', import.meta.url));

let test: TestGateway;
let configHome: string;
let emptyConfigHome: string;
let agent: ApprovedAgent;

beforeAll(async () => {
  test = await startTestGateway();
  configHome = await mkdtemp(join(tmpdir(), 'agw-cli-billing-'));
  emptyConfigHome = await mkdtemp(join(tmpdir(), 'agw-cli-billing-noprofile-'));
  agent = await onboardApprovedAgent(test, configHome);
}, 60_000);

afterAll(async () => {
  await test?.close();
  for (const dir of [configHome, emptyConfigHome]) if (dir) await rm(dir, { recursive: true, force: true });
});

/** The shell block that follows the walk-through's heading in docs/billing.md. */
async function walkthroughBlock(): Promise<string[]> {
  const readme = await readFile(WALKTHROUGH, 'utf8');
  const start = readme.indexOf('Quote to cash with that key');
  expect(start).toBeGreaterThanOrEqual(0);
  const open = readme.indexOf('```sh\n', start) + '```sh\n'.length;
  return readme.slice(open, readme.indexOf('```', open)).trim().split('\n');
}

/** The words of one shell line as sh splits them: single quotes, double quotes, plain words; no `#` tail. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i] as string;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end === -1) throw new Error(`unclosed quote in ${line}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === ' ') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (c === '#' && !inWord) {
      break;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

// biome-ignore lint/suspicious/noExplicitAny: printed JSON, checked by the assertions below.
type Json = Record<string, any>;

/** The JSON the CLI printed after its status fields (the result, or the approval when pending). */
function printedJson(stdout: string): Json {
  return JSON.parse(stdout.slice(stdout.indexOf('\n{') + 1));
}

describe('docs/billing.md quote to cash with the CLI', () => {
  it('runs every line of the walk-through as written, through to a paid invoice', async () => {
    const lines = await walkthroughBlock();
    // The key comes from the environment, as the block's first line sets it.
    expect(lines[0]).toBe('export AGW_KEY="$KEY"');
    const organizationId = (
      await test.gateway.knex('installations').where({ id: agent.installationId }).first()
    ).organization_id as string;
    const agentEnv = { ...test.env, AGW_KEY: agent.key, XDG_CONFIG_HOME: emptyConfigHome };
    const values = new Map<string, string>([['<organization_id>', organizationId]]);
    const defines: Record<string, string> = {
      'billing.account.save': '<account_id>',
      'billing.document.create_draft': '<quote_id>',
      'billing.document.convert_quote_to_order': '<order_id>',
      'billing.document.convert_order_to_invoice': '<invoice_id>',
    };
    const commands = lines.slice(1);
    expect(commands.length).toBe(14);
    const answers: Array<{ args: string[]; printed: Json | null }> = [];
    for (const line of commands) {
      const words = shellWords(line);
      expect(words.slice(0, 3), line).toEqual(['npm', 'run', 'agw']);
      expect(words[3]).toBe('--');
      let args = words.slice(4);
      args = args.map((arg) => {
        let replaced = arg;
        for (const [placeholder, value] of values) replaced = replaced.replaceAll(placeholder, value);
        return replaced;
      });
      expect(args.join(' '), line).not.toMatch(/<[a-z_]+>/);
      const isAgent = args[0] === 'invoke';
      const result = await runCli(args, isAgent ? agentEnv : test.env);
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      const printed = isAgent ? printedJson(result.stdout) : null;
      answers.push({ args, printed });
      if (!isAgent || printed === null) continue;
      if (result.stdout.includes('pending_approval')) {
        values.set('<approval_id>', printed.approval_id);
        values.set('<approval_token>', printed.approval_token);
        continue;
      }
      const placeholder = defines[args[1] as string];
      if (placeholder !== undefined) {
        values.set(placeholder, printed.document_id ?? printed.account?.id);
      }
    }
    const byCapability = (id: string) => answers.filter((a) => a.args[1] === id).map((a) => a.printed);
    const year = new Date().getUTCFullYear();
    expect(byCapability('billing.document.create_draft')[0]).toMatchObject({ totals: { total: 357 } });
    expect(byCapability('billing.document.finalize')[0]).toMatchObject({ number: `RE-${year}-00001` });
    const payments = byCapability('billing.payment.record');
    // Pending, recorded (partially paid), pending, recorded (paid).
    expect(payments[1]).toMatchObject({ document: { status: 'partially_paid', balance: 257 } });
    expect(payments[3]).toMatchObject({ document: { status: 'paid', balance: 0 } });
    const read = byCapability('billing.document.read')[0];
    expect(read).toMatchObject({
      document: { status: 'paid', payment_status: 'paid', balance: 0, total: 357 },
    });
    expect(read?.payments.map((p: { amount: number }) => p.amount)).toEqual([100, 257]);
  }, 120_000);
});
