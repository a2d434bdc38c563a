// The README's five-minute tour, run as written: every `npm run agw -- …` line of its three blocks
// becomes the same `agw` arguments against a real gateway (the `<…>` placeholders replaced by what the
// step before answered, the owner's code typed into onboard's prompt as a person would). It ends with
// an issued invoice as a PDF and a booking page that offers times.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMailbox } from '../src/mailbox.js';
import { mailedCode } from './helpers/approved-agent.js';
import { runCli, spawnCli } from './helpers/run-cli.js';
import { startTestGateway, type TestGateway } from './helpers/test-gateway.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

let test: TestGateway;
let configHome: string;

beforeAll(async () => {
  test = await startTestGateway();
  configHome = await mkdtemp(join(tmpdir(), 'agw-cli-tour-'));
}, 60_000);

afterAll(async () => {
  await test?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

/** The `agw` arguments of each command line of the shell block after `marker` (a pipe ends a line). */
async function tourStep(marker: string): Promise<string[][]> {
  const readme = await readFile(README, 'utf8');
  const start = readme.indexOf(marker);
  expect(start, marker).toBeGreaterThanOrEqual(0);
  const open = readme.indexOf('```sh\n', start) + '```sh\n'.length;
  return readme
    .slice(open, readme.indexOf('```', open))
    .split('\n')
    .filter((line) => line.startsWith('npm run'))
    .map((line) => {
      const words = shellWords(line.replace(/\\$/, ''));
      expect(words.slice(0, words.indexOf('--')), line).toEqual(
        words[2] === '--silent' ? ['npm', 'run', '--silent', 'agw'] : ['npm', 'run', 'agw'],
      );
      return words.slice(words.indexOf('--') + 1);
    });
}

/** A line's words as sh splits them (quotes, plain words); a `#` comment or a `|` ends the line. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i] as string;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if ((c === '#' || c === '|') && word === undefined) {
      break;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The owner's code once onboard has mailed it: a CLI started from source on a busy machine takes a while. */
async function ownerCode(email: string): Promise<string> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await mailedCode(test.dataDir, email);
    } catch (error) {
      if (tries === 9) throw error;
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: printed JSON, checked by the assertions below.
type Json = Record<string, any>;

describe('the README tour', () => {
  it('onboards an agent, issues one invoice as a PDF and opens a booking link, every line as written', async () => {
    const env = { ...test.env, XDG_CONFIG_HOME: configHome };
    const values = new Map<string, string>();
    const fill = (args: string[]) =>
      args.map((arg) => [...values].reduce((text, [key, value]) => text.replaceAll(key, value), arg));
    const run = async (args: string[]) => {
      const filled = fill(args);
      expect(filled.join(' '), args.join(' ')).not.toMatch(/<[a-z-]+>/);
      const result = await runCli(filled, env);
      expect(result.code, `${filled.join(' ')}\n${result.stderr}`).toBe(0);
      return result.stdout;
    };
    const result = (stdout: string): Json =>
      JSON.parse(stdout.trimStart().startsWith('{') ? stdout : stdout.slice(stdout.indexOf('\n{') + 1));

    // 1. Onboarding: onboard asks for the owner's code, read from the mail as the tour says.
    const [onboard, mailList, mailShow, installationsList, approve, whoami, ...rest1] =
      await tourStep('**1. An agent onboards.**');
    expect(rest1).toEqual([]);
    const child = spawnCli(onboard as string[], env, { stdin: 'pipe' });
    const owner = onboard?.[onboard.indexOf('--owner-email') + 1] as string;
    child.stdin?.end(`${await ownerCode(owner)}\n`);
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(await run(mailList as string[])).toContain(owner);
    values.set('<mail-id>', ((await listMailbox(test.dataDir)).at(-1) as { id: string }).id);
    expect(await run(mailShow as string[])).toMatch(/Code: \d+/);
    const pending = await run(installationsList as string[]);
    values.set('<installation-id>', /^([0-9a-f-]{36}) +pending/m.exec(pending)?.[1] as string);
    await run(approve as string[]);
    const me = await run(whoami as string[]);
    expect(me).toMatch(/approval +approved/);
    values.set('<organization-id>', /\(\w+, ([0-9a-f-]{36})\)/.exec(me)?.[1] as string);

    // 2. One invoice, ending in invoice.pdf (here: the PDF the --json answer carries).
    const invoice = await tourStep('**2. One invoice.**');
    expect(invoice.map((args) => args[1] ?? args[0])).toEqual([
      'credit',
      'billing.profile.save',
      'billing.account.save',
      'billing.document.create_draft',
      'billing.document.finalize',
      'billing.document.pdf',
    ]);
    const answers: Json[] = [];
    for (const args of invoice) {
      const stdout = await run(args);
      if (args[0] !== 'invoke') continue;
      const answer = result(stdout);
      answers.push(answer);
      if (args[1] === 'billing.account.save') values.set('<account-id>', answer.account.id);
      if (args[1] === 'billing.document.create_draft') values.set('<document-id>', answer.document_id);
    }
    expect(answers[3]).toMatchObject({
      number: `RE-${new Date().getUTCFullYear()}-00001`,
      document: { status: 'open' },
    });
    const pdf = Buffer.from(answers[4]?.result.pdf_base64, 'base64');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    // 3. One booking link, whose page offers times.
    const booking = await tourStep('**3. One booking link.**');
    let urlPath = '';
    for (const args of booking) {
      const answer = result(await run(args));
      if (args[1] === 'calendar.calendar.manage') values.set('<calendar-id>', answer.calendar.id);
      if (args[1] === 'calendar.event_type.manage') values.set('<event-type-id>', answer.event_type.id);
      if (args[1] === 'calendar.booking_link.manage') urlPath = answer.url_path;
    }
    expect(urlPath).toMatch(/^\/book\/intro-call-/);
    const page = await fetch(`${test.gateway.url}${urlPath}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<h1>Intro call</h1>');
    expect(html).toContain('type="radio" name="start"');
  }, 180_000);
});
