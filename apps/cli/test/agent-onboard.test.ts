// The agent commands against a real in-process gateway: register → onboard (codes read from the dev
// mailbox, passed as flags) → operator approval with `agw installations approve` → whoami approved;
// resuming after an interruption without a second organization; whoami's 412 in words; keys rotate
// (old key refused); the profile file's modes; no key in any output; the hand-over exit code.
// The approval wait runs with a fake clock (injected through AgentContext.clientOptions), never 30 s:
// an onboard that redeemed the codes polls first 30 s later; one that only resumes the wait polls at once.
// Not covered here: search/describe/dry-run/invoke and params parsing (agent-meta.test.ts).
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractOtpFromBody } from '@agw/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentContext } from '../src/agent-context.js';
import { keysRotate } from '../src/commands/keys.js';
import { onboard } from '../src/commands/onboard.js';
import { register } from '../src/commands/register.js';
import { ExitError } from '../src/io.js';
import { findMailboxMessage, listMailbox } from '../src/mailbox.js';
import { configPath, readProfile } from '../src/profiles.js';
import { runCli, spawnCli } from './helpers/run-cli.js';
import { captureContext, startTestGateway, type TestGateway } from './helpers/test-gateway.js';

let test: TestGateway;
let configHome: string;

beforeAll(async () => {
  test = await startTestGateway();
  configHome = await mkdtemp(join(tmpdir(), 'agw-cli-config-'));
});

afterAll(async () => {
  await test?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

let counter = 0;
function identity() {
  counter += 1;
  const tag = `${Date.now().toString(36)}${counter}`;
  return {
    profile: `p${tag}`,
    ownerEmail: `owner-${tag}@example.com`,
    agentEmail: `agent-${tag}@example.com`,
    appSlug: `app-${tag}`,
    appName: `App ${tag}`,
  };
}

/**
 * An in-process context with a fake clock: the approval wait's sleeps only advance `now`. `sleeps` are
 * their lengths, `polls` the fake times of the GET /org/current requests (0 = the run's start);
 * `onSleep` runs before a sleep returns (an operator acting during the wait).
 */
function agentContext(extra: Partial<AgentContext> = {}, onSleep?: (ms: number) => Promise<void>) {
  const env = { ...test.env, XDG_CONFIG_HOME: configHome };
  const captured = captureContext(env);
  const start = 1_000_000;
  let clock = start;
  const sleeps: number[] = [];
  const polls: number[] = [];
  const context: AgentContext = {
    ...captured.context,
    interactive: false,
    readStdin: async () => '',
    clientOptions: {
      now: () => clock,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        clock += ms;
        await onSleep?.(ms);
      },
      fetch: (input, init) => {
        if (String(input).endsWith('/org/current')) polls.push(clock - start);
        return fetch(input, init);
      },
    },
    ...extra,
  };
  return { context, stdout: captured.stdout, stderr: captured.stderr, env, sleeps, polls };
}

/** The code in the newest dev-mailbox message to `email` (the gateway writes it before answering). */
async function codeFor(email: string): Promise<string> {
  for (let tries = 0; tries < 200; tries += 1) {
    const messages = (await listMailbox(test.dataDir)).filter((message) => message.to.includes(email));
    const last = messages.at(-1);
    if (last) {
      const code = extractOtpFromBody((await findMailboxMessage(test.dataDir, last.id)).body);
      if (code) return code;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no code mailed to ${email}`);
}

function expectRejectsWithExit(promise: Promise<unknown>, exitCode: number, message: RegExp) {
  return expect(promise).rejects.toSatisfy(
    (error: unknown) =>
      error instanceof ExitError && error.exitCode === exitCode && message.test(error.message),
  );
}

describe('agw register / onboard / whoami / keys rotate', () => {
  const who = identity();
  let installationKey = '';

  it('register keeps the bootstrap key in a 0600 profile file and prints the next step, not the key', async () => {
    const run = agentContext();
    await register(who, run.context);
    const profile = await readProfile(run.env, who.profile);
    const bootstrap = profile.onboarding?.bootstrap_key as string;
    expect(bootstrap).toMatch(/\S{20,}/);
    expect(profile.onboarding).toMatchObject({ owner_email: who.ownerEmail, agent_email: who.agentEmail });
    expect(run.stdout()).toContain(
      `Next: agw onboard --org-name "<organization name>" --profile ${who.profile}`,
    );
    expect(run.stdout() + run.stderr()).not.toContain(bootstrap);

    const path = configPath(run.env);
    expect(path).toBe(join(configHome, 'agw', 'config.json'));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(configHome, 'agw'))).mode & 0o777).toBe(0o700);
  });

  it('an onboarding interrupted at the owner-code prompt keeps the installation key; whoami names the missing code', async () => {
    const run = agentContext({
      interactive: true,
      prompt: async () => {
        throw new Error('terminal closed');
      },
    });
    await expect(
      onboard({ profile: who.profile, orgName: `Org ${who.appSlug}` }, run.context),
    ).rejects.toThrow('terminal closed');
    const profile = await readProfile(run.env, who.profile);
    installationKey = profile.key as string;
    expect(installationKey).toMatch(/\S{20,}/);
    expect(profile.onboarding?.bootstrap_key).toBeUndefined();
    expect(profile.onboarding?.owner_otp_claimed).toBeFalsy();
    expect(run.stderr()).toContain(`installation key saved in profile '${who.profile}'`);
    expect(run.stdout() + run.stderr()).not.toContain(installationKey);

    const whoami = await runCli(['whoami', '--profile', who.profile], run.env);
    expect(whoami.code).toBe(4);
    expect(whoami.stderr).toContain('the owner has not claimed the owner code');
    expect(whoami.stderr).toContain('the agent mailbox is not verified');
  });

  it('running onboard again continues with the stored key and creates no second organization', async () => {
    const run = agentContext();
    await onboard(
      {
        profile: who.profile,
        ownerOtp: await codeFor(who.ownerEmail),
        agentOtp: await codeFor(who.agentEmail),
        wait: false,
      },
      run.context,
    );
    expect(run.stdout()).toContain('Codes done; the operator has not approved yet.');
    const installations = await test.gateway.knex('installations').where({ owner_email: who.ownerEmail });
    expect(installations).toHaveLength(1);
    const profile = await readProfile(run.env, who.profile);
    expect(profile.key).toBe(installationKey);
    expect(profile.onboarding).toMatchObject({ owner_otp_claimed: true, agent_otp_verified: true });

    const pending = await runCli(['whoami', '--profile', who.profile, '--json'], run.env);
    expect(pending.code).toBe(0);
    expect(JSON.parse(pending.stdout).installation.operator_approval_status).toBe('pending');
  });

  it('after the operator approves, onboard finishes at once (no 30 s first poll) and whoami shows approved', async () => {
    const run = agentContext();
    const profile = await readProfile(run.env, who.profile);
    const approved = await runCli(['installations', 'approve', profile.installation_id as string], test.env);
    expect(approved.code).toBe(0);

    await onboard({ profile: who.profile }, run.context);
    expect(run.sleeps).toEqual([]);
    expect(run.polls).toEqual([0]);
    expect(run.stderr()).toContain('Approved by the operator.');
    expect(run.stdout()).toMatch(/status\s+approved/);
    expect((await readProfile(run.env, who.profile)).onboarding).toBeUndefined();

    const whoami = await runCli(['whoami', '--profile', who.profile], run.env);
    expect(whoami.stderr).toBe('');
    expect(whoami.code).toBe(0);
    expect(whoami.stdout).toMatch(/approval\s+approved/);
    expect(whoami.stdout).toContain(`Org ${who.appSlug}`);
    expect(whoami.stdout).not.toContain(installationKey);
    expect(await readFile(configPath(run.env), 'utf8')).toContain(installationKey);
  });

  it('keys rotate saves the new key; the old one is refused afterwards', async () => {
    const run = agentContext();
    await keysRotate({ profile: who.profile }, run.context);
    const rotated = (await readProfile(run.env, who.profile)).key as string;
    expect(rotated).not.toBe(installationKey);
    expect(run.stdout()).toContain('the old one stops working');
    expect(run.stdout() + run.stderr()).not.toContain(rotated);

    const old = await runCli(['whoami', '--profile', who.profile], { ...run.env, AGW_KEY: installationKey });
    expect(old.code).toBe(3);
    const current = await runCli(['whoami', '--profile', who.profile, '--json'], run.env);
    expect(current.code).toBe(0);
  });
});

describe('agw onboard after a lost /organizations answer', () => {
  it('sends the saved request again with the same Idempotency-Key and gets the same installation key back', async () => {
    const who = identity();
    await register(who, agentContext().context);
    // The gateway creates the organization, but the answer never reaches the CLI.
    const lossy = agentContext({
      clientOptions: {
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if (String(input).endsWith('/organizations')) throw new TypeError('socket hang up');
          return response;
        },
      },
    });
    await expect(
      onboard({ profile: who.profile, orgName: 'Lost Answer Ltd', wait: false }, lossy.context),
    ).rejects.toBeInstanceOf(ExitError);
    expect((await readProfile(lossy.env, who.profile)).key).toBeUndefined();

    const run = agentContext();
    await onboard(
      {
        profile: who.profile,
        ownerOtp: await codeFor(who.ownerEmail),
        agentOtp: await codeFor(who.agentEmail),
        wait: false,
      },
      run.context,
    );
    const profile = await readProfile(run.env, who.profile);
    const installations = await test.gateway.knex('installations').where({ owner_email: who.ownerEmail });
    expect(installations).toHaveLength(1);
    expect(profile.installation_id).toBe(installations[0].id);
    expect(profile.onboarding?.owner_otp_claimed).toBe(true);
  });
});

describe('agw onboard right after redeeming the codes', () => {
  it('waits 30 s before its first check, even when the operator approves in the meantime', async () => {
    const who = identity();
    await register(who, agentContext().context);
    const approveDuringWait = async () => {
      const profile = await readProfile({ ...test.env, XDG_CONFIG_HOME: configHome }, who.profile);
      const approved = await runCli(
        ['installations', 'approve', profile.installation_id as string],
        test.env,
      );
      expect(approved.code).toBe(0);
    };
    const created = agentContext();
    await onboard(
      { profile: who.profile, orgName: `Org ${who.appSlug}`, wait: false },
      created.context,
    ).catch(() => undefined);
    const run = agentContext({}, approveDuringWait);
    await onboard(
      {
        profile: who.profile,
        ownerOtp: await codeFor(who.ownerEmail),
        agentOtp: await codeFor(who.agentEmail),
      },
      run.context,
    );
    expect(run.sleeps).toEqual([30_000]);
    expect(run.polls).toEqual([30_000]);
    expect(run.stdout()).toMatch(/status\s+approved/);
  });
});

describe('agw onboard spawned, codes piped on stdin', () => {
  it('registers, creates the organization, redeems both codes from stdin and prints no key', async () => {
    const who = identity();
    const env = { ...test.env, XDG_CONFIG_HOME: configHome };
    const args = ['onboard', '--profile', who.profile, '--owner-email', who.ownerEmail, '--agent-email'];
    const child = spawnCli(
      [
        ...[...args, who.agentEmail, '--app-slug', who.appSlug, '--app-name', who.appName],
        ...['--org-name', 'Piped Org', '--no-wait'],
      ],
      env,
      { stdin: 'pipe' },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const closed = new Promise((resolve) => child.on('close', resolve));
    // Both codes are mailed during /organizations, before onboard reads stdin.
    child.stdin?.end(`${await codeFor(who.ownerEmail)}\n${await codeFor(who.agentEmail)}\n`);
    expect(await closed).toBe(0);
    expect(output).toContain('Owner code accepted.');
    expect(output).toContain('Agent mailbox verified.');
    const key = (await readProfile(env, who.profile)).key as string;
    expect(output).not.toContain(key);
  });
});

describe('agw onboard hand-over', () => {
  it('exits 6 when the operator blocks the installation during the wait', async () => {
    const who = identity();
    const run = agentContext();
    const base = {
      profile: who.profile,
      ownerEmail: who.ownerEmail,
      appSlug: who.appSlug,
      appName: who.appName,
    };
    await onboard(
      { ...base, orgName: `Org ${who.appSlug}`, ownerOtp: 'wrong-code', wait: false },
      run.context,
    ).catch(() => undefined);
    await onboard(
      { profile: who.profile, ownerOtp: await codeFor(who.ownerEmail), wait: false },
      run.context,
    );
    const profile = await readProfile(run.env, who.profile);
    const blocked = await runCli(['installations', 'block', profile.installation_id as string], test.env);
    expect(blocked.code).toBe(0);
    await expectRejectsWithExit(onboard({ profile: who.profile }, run.context), 6, /blocked/);
  });

  it('asks again for a mistyped code on a terminal; exits 6 after 15 minutes without approval (fake clock)', async () => {
    const who = identity();
    const run = agentContext();
    const flags = {
      profile: who.profile,
      ownerEmail: who.ownerEmail,
      appSlug: who.appSlug,
      appName: who.appName,
    };
    await onboard({ ...flags, orgName: `Org ${who.appSlug}`, ownerOtp: 'x', wait: false }, run.context).catch(
      () => undefined,
    );
    // On a terminal a mistyped code is asked again.
    const answers = ['000000', await codeFor(who.ownerEmail)];
    const questions: string[] = [];
    const terminal = agentContext({
      interactive: true,
      prompt: async (question) => {
        questions.push(question);
        return answers.shift() ?? '';
      },
    });
    await expectRejectsWithExit(onboard({ profile: who.profile }, terminal.context), 6, /15 minutes/);
    expect(questions).toEqual([
      `Owner code (sent to ${who.ownerEmail}): `,
      `Owner code (sent to ${who.ownerEmail}): `,
    ]);
    expect(terminal.stderr()).toContain('That code is not valid; try again.');
    expect(terminal.stderr()).toContain('Owner code accepted.');
  });
});
