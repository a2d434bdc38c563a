import { extractOtpFromBody } from '@agw/contracts';
import type { AgentContext } from '../../src/agent-context.js';
import { onboard } from '../../src/commands/onboard.js';
import { findMailboxMessage, listMailbox } from '../../src/mailbox.js';
import { readProfile } from '../../src/profiles.js';
import { runCli } from './run-cli.js';
import { captureContext, type TestGateway } from './test-gateway.js';

/** A CLI profile holding the key of an installation the operator approved. */
export interface ApprovedAgent {
  readonly profile: string;
  readonly organizationName: string;
  readonly installationId: string;
  /** The installation key (to assert it never appears in output). */
  readonly key: string;
  /** Environment for `runCli` as this agent (AGW_URL, XDG_CONFIG_HOME); pass `--profile <profile>`. */
  readonly env: Record<string, string>;
}

let counter = 0;

/** The code in the newest dev-mailbox message to `email` (mailed before /organizations answers). */
export async function mailedCode(dataDir: string, email: string): Promise<string> {
  for (let tries = 0; tries < 200; tries += 1) {
    const messages = (await listMailbox(dataDir)).filter((message) => message.to.includes(email));
    const last = messages.at(-1);
    if (last) {
      const code = extractOtpFromBody((await findMailboxMessage(dataDir, last.id)).body);
      if (code) return code;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no code mailed to ${email}`);
}

/**
 * Onboards through the CLI's own `onboard` (owner code only, read from the dev mailbox as if typed on
 * stdin) and approves the installation with `agw installations approve`, as an operator would.
 */
export async function onboardApprovedAgent(test: TestGateway, configHome: string): Promise<ApprovedAgent> {
  counter += 1;
  const tag = `${Date.now().toString(36)}${counter}`;
  const ownerEmail = `owner-${tag}@example.com`;
  const organizationName = `Org ${tag}`;
  const profile = `agent${tag}`;
  const env = { ...test.env, XDG_CONFIG_HOME: configHome };
  const captured = captureContext(env);
  const context: AgentContext = {
    ...captured.context,
    interactive: false,
    readStdin: async () => `${await mailedCode(test.dataDir, ownerEmail)}\n`,
  };
  await onboard(
    {
      profile,
      ownerEmail,
      appSlug: `app-${tag}`,
      appName: `App ${tag}`,
      orgName: organizationName,
      wait: false,
    },
    context,
  );
  const stored = await readProfile(env, profile);
  const installationId = stored.installation_id as string;
  const approved = await runCli(['installations', 'approve', installationId], test.env);
  if (approved.code !== 0) throw new Error(`approve failed: ${approved.stderr}`);
  return { profile, organizationName, installationId, key: stored.key as string, env };
}
