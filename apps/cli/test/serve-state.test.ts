// `agw serve` writes where it runs to $XDG_STATE_HOME/agw/serve.json; operator commands in another
// shell (no DATA_DIR, no AGW_URL) find it there; flags and variables still win; a state file left by a
// process that is gone is ignored with a line saying so; a clean shutdown removes the file.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationsList } from '../src/commands/installations.js';
import { mailList } from '../src/commands/mail.js';
import { serve } from '../src/commands/serve.js';
import { createCliEnvironment, runCli } from './helpers/run-cli.js';
import { captureContext } from './helpers/test-gateway.js';

const MAIL_ID = '2026-11-22T05-40-00.000Z-owner-1@agw.local';
const MAIL = [
  'From: Agent Gateway <no-reply@agw.local>',
  'To: owner@example.com',
  'Subject: Your Agent Gateway owner code',
  'Date: Sun, 22 Nov 2026 05:40:00 +0000',
  'Message-ID: <owner-1@agw.local>',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Code: 123456',
  '',
].join('\r\n');

let environment: Awaited<ReturnType<typeof createCliEnvironment>>;
let stateHome: string;
let stateFile: string;
let stop: (signal: string) => void = () => {};
let serving: Promise<void> = Promise.resolve();

/**
 * `agw serve` runs in this process (spawning it costs a second build of the gateway); the commands that
 * look for it run as from another shell: spawned, or with an environment of their own.
 */
beforeAll(async () => {
  environment = await createCliEnvironment({ migrated: true });
  stateHome = await mkdtemp(join(tmpdir(), 'agw-cli-state-'));
  stateFile = join(stateHome, 'agw', 'serve.json');
  let stderr = '';
  let written = () => {};
  const wrote = new Promise<void>((resolve) => {
    written = resolve;
  });
  const io = {
    stdout: () => {},
    stderr: (text: string) => {
      stderr += text;
      if (stderr.includes(`agw: wrote ${stateFile}`)) written();
    },
  };
  const stopSignal = new Promise<string>((resolve) => {
    stop = resolve;
  });
  const env = { ...environment.env, XDG_STATE_HOME: stateHome, LOG_LEVEL: 'silent' };
  serving = serve({ port: '0', host: '127.0.0.1' }, { env, io, stopSignal });
  await Promise.race([wrote, serving]);
});

afterAll(async () => {
  stop('SIGTERM');
  await serving;
  await environment?.cleanup();
  if (stateHome) await rm(stateHome, { recursive: true, force: true });
});

describe('agw serve state file', () => {
  it('names the bound port and the data folder; a second shell needs no DATA_DIR or AGW_URL', async () => {
    const dataDir = environment.env.DATA_DIR as string;
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as { url: string; data_dir: string };
    expect(state).toMatchObject({ data_dir: dataDir, pid: process.pid });
    expect(state.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(state.url).not.toBe('http://127.0.0.1:8080');

    const installations = await runCli(['installations', 'list'], { XDG_STATE_HOME: stateHome });
    expect(installations).toMatchObject({ code: 0, stdout: 'No installations.\n', stderr: '' });

    await mkdir(join(dataDir, 'mail'), { recursive: true, mode: 0o700 });
    await writeFile(join(dataDir, 'mail', `${MAIL_ID}.eml`), MAIL, { mode: 0o600 });
    const mail = captureContext({ XDG_STATE_HOME: stateHome });
    await mailList({}, mail.context);
    expect(mail.stderr()).toBe('');
    expect(mail.stdout()).toContain('Your Agent Gateway owner code');
  });

  it('AGW_URL still wins over the state file', async () => {
    const elsewhere = captureContext({ XDG_STATE_HOME: stateHome, AGW_URL: 'http://127.0.0.1:1' });
    await expect(installationsList({}, elsewhere.context)).rejects.toMatchObject({ exitCode: 5 });
  });

  it('ignores a state file whose agw serve is gone, and says so', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('close', resolve));
    const staleHome = await mkdtemp(join(tmpdir(), 'agw-cli-stale-'));
    try {
      const staleFile = join(staleHome, 'agw', 'serve.json');
      await mkdir(join(staleHome, 'agw'), { recursive: true });
      const state = { url: 'http://127.0.0.1:1', data_dir: '/nonexistent', pid: gone.pid };
      await writeFile(staleFile, JSON.stringify({ ...state, started_at: '2026-11-22T05:40:00.000Z' }));

      const mail = await runCli(['mail', 'list'], { XDG_STATE_HOME: staleHome });
      expect(mail.code).toBe(0);
      expect(mail.stderr).toBe(
        `agw: ignoring ${staleFile}: the agw serve that wrote it (pid ${gone.pid}) is no longer running\n`,
      );
      // The default ./.data (the repository root here), not the dead gateway's folder.
      expect(mail.stdout).not.toContain('/nonexistent');
    } finally {
      await rm(staleHome, { recursive: true, force: true });
    }
  });

  it('a clean shutdown removes the state file', async () => {
    stop('SIGTERM');
    await serving;
    await expect(stat(stateFile)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
