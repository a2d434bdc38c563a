// `agw mail list|show` read the dev mailbox (DATA_DIR/mail/*.eml) directly: sample messages in the
// gateway's file naming, a quoted-printable multipart one and a plain one, as tables, text and JSON,
// both as functions and through the spawned binary. Suppression commands are in operator-commands.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailList, mailShow } from '../src/commands/mail.js';
import { ExitError } from '../src/io.js';
import { runCli } from './helpers/run-cli.js';
import { captureContext } from './helpers/test-gateway.js';

const OWNER_ID = '2026-11-22T05-40-00.000Z-owner-1@agw.local';
const AGENT_ID = '2026-11-22T05-41-30.000Z-agent-2@agw.local';

const OWNER_MAIL = [
  'From: Agent Gateway <no-reply@agw.local>',
  'To: owner@example.com',
  'Subject: Your Agent Gateway owner code',
  'Date: Sun, 22 Nov 2026 05:40:00 +0000',
  'Message-ID: <owner-1@agw.local>',
  'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: 7bit',
  '',
  'Hello,',
  '',
  'Code: 123456',
  '',
].join('\r\n');

const AGENT_MAIL = [
  'From: Agent Gateway <no-reply@agw.local>',
  'To: agent@agents.example',
  'Subject: =?UTF-8?Q?Agent_mailbox_code_=E2=80=94_Ref:_corr-42?=',
  'Date: Sun, 22 Nov 2026 05:41:30 +0000',
  'Message-ID: <agent-2@agw.local>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/alternative; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  'Verify your mailbox =E2=80=94 caf=C3=A9.',
  'Code: 654321',
  '--b1',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>Code: 654321</p>',
  '--b1--',
  '',
].join('\r\n');

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agw-cli-mail-'));
  await mkdir(join(dataDir, 'mail'));
  await writeFile(join(dataDir, 'mail', `${AGENT_ID}.eml`), AGENT_MAIL);
  await writeFile(join(dataDir, 'mail', `${OWNER_ID}.eml`), OWNER_MAIL);
  await writeFile(join(dataDir, 'mail', 'notes.txt'), 'not a message');
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('agw mail', () => {
  it('lists messages oldest first with decoded subjects', async () => {
    const out = captureContext({ DATA_DIR: dataDir });
    await mailList({}, out.context);
    const lines = out.stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+DATE\s+TO\s+SUBJECT$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${OWNER_ID}\\s+2026-11-22 05:40\\s+owner@example\\.com\\s+Your Agent Gateway owner code$`),
    );
    expect(lines[2]).toMatch(/agent@agents\.example\s+Agent mailbox code — Ref: corr-42$/);
    expect(lines).toHaveLength(3);
  });

  it('says so when the mailbox is empty or missing', async () => {
    const out = captureContext({});
    await mailList({ dataDir: join(dataDir, 'nothing-here') }, out.context);
    expect(out.stdout()).toMatch(/^No messages in .*nothing-here\/mail\.\n$/);
  });

  it('shows headers and the decoded text body, by full id or a unique part of it', async () => {
    const out = captureContext({ DATA_DIR: dataDir });
    await mailShow('agent-2', {}, out.context);
    expect(out.stdout()).toMatch(
      /^From\s+Agent Gateway <no-reply@agw\.local>\nTo\s+agent@agents\.example\nSubject\s+Agent mailbox code — Ref: corr-42\n/,
    );
    expect(out.stdout()).toContain('\n\nVerify your mailbox — café.\nCode: 654321\n');
    expect(out.stdout()).not.toContain('<p>');
    const json = captureContext({ DATA_DIR: dataDir });
    await mailShow(OWNER_ID, { json: true }, json.context);
    expect(JSON.parse(json.stdout())).toMatchObject({
      message: {
        id: OWNER_ID,
        to: 'owner@example.com',
        message_id: '<owner-1@agw.local>',
        body: expect.stringContaining('Code: 123456'),
      },
    });
  });

  it('exits 2 for an unknown or ambiguous id', async () => {
    for (const id of ['nope', '2026-11-22']) {
      const error = await mailShow(id, {}, captureContext({ DATA_DIR: dataDir }).context).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ExitError);
      expect((error as ExitError).exitCode).toBe(2);
    }
  });

  it('works through the binary with --data-dir and --json', async () => {
    const listed = await runCli(['mail', 'list', '--data-dir', dataDir, '--json']);
    expect(listed.code).toBe(0);
    const { messages } = JSON.parse(listed.stdout) as { messages: Array<{ id: string; subject: string }> };
    expect(messages.map((message) => message.id)).toEqual([OWNER_ID, AGENT_ID]);
    const shown = await runCli(['mail', 'show', 'owner-1'], { DATA_DIR: dataDir });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Code: 123456');
    const missing = await runCli(['mail', 'show', 'nope', '--data-dir', dataDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^agw: no message 'nope'/);
  });
});
