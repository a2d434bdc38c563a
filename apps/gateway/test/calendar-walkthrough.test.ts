// The curl walk-through of docs/calendar.md runs as written: its shell blocks, in order, in bash against
// a fresh gateway, with only KEY, OPERATOR_KEY and AGW set as the text says. A step that fails (curl, a
// jq -e on a missing field) stops the script and fails the test.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../../../tests/helpers/require-tool.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { attachmentsOf, readDevMailbox, waitUntil } from './helpers/mail-sink.js';

const run = promisify(execFile);
const toolsUnavailable = requireTool('bash', 'curl', 'jq');

const gateway = useGateway();
let key: string;
beforeAll(async () => {
  ({ key } = await approvedInstallation(gateway));
});

/** The ```sh blocks of the doc's "Walk-through with curl" section, in order. */
async function walkThrough(): Promise<string> {
  const doc = await readFile(new URL('../../../docs/calendar.md', import.meta.url), 'utf8');
  const section = doc.slice(
    doc.indexOf('## Walk-through with curl'),
    doc.indexOf('\n## ', doc.indexOf('## Walk-through') + 1),
  );
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]).join('\n');
}

describe.skipIf(toolsUnavailable)(`docs/calendar.md walk-through ${toolsUnavailable ?? ''}`, () => {
  it('sets up, issues the secret through an approval, books once, lists, moves and cancels', async () => {
    const script = await walkThrough();
    expect(script).toContain('approval_token');
    const { stdout } = await run('bash', ['-e', '-o', 'pipefail', '-c', script], {
      // SHLVL: bash sources ~/.bashrc when stdin is a socket (Node's pipes are) and SHLVL is unset,
      // taking it for a remote shell; the walk-through runs without anyone's startup files.
      env: {
        PATH: process.env.PATH,
        SHLVL: '1',
        KEY: key,
        OPERATOR_KEY: gateway.operatorKey,
        AGW: gateway.url,
      },
      timeout: 60_000,
    }).catch((error: Error & { stdout?: string }) => {
      // What the steps printed before the one that failed says which one it was.
      throw new Error(`${error.message}\nprinted before it failed:\n${error.stdout ?? ''}`);
    });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('2'); // availability rules
    expect(lines[1]).toMatch(/^\/book\/intro-call-[0-9a-f]{8}\/[A-Za-z0-9_-]{43}$/);
    const slot = JSON.parse(lines[2] as string);
    expect(slot).toMatchObject({ local_time: expect.stringMatching(/^\d\d:\d\d$/) });
    expect(lines[3]).toBe('404'); // the one-time link refuses a second booking
    const listed = JSON.parse(lines[4] as string);
    expect(listed).toMatchObject({ status: 'confirmed', start_at: slot.start });
    const later = new Date(Date.parse(slot.start) + 3_600_000).toISOString();
    expect(JSON.parse(lines[5] as string)).toEqual({ start_at: later, sequence: 1 });
    expect(JSON.parse(lines[6] as string)).toEqual({ status: 'cancelled', sequence: 2 });
    expect(lines).toHaveLength(7);
    const mail = await waitUntil(async () =>
      (await readDevMailbox(gateway.dataDir)).find(
        (m) => m.to.includes('kim@example.com') && m.subject.startsWith('Confirmed:'),
      ),
    );
    expect(attachmentsOf(mail).map((a) => a.filename)).toEqual(['invite.ics']);
  });
});
