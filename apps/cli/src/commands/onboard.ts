import { type GatewayClient, GatewayError, HandOverToHumanError, newIdempotencyKey } from '@agw/client';
import type { OrganizationsResponse, OrgCurrentResponse } from '@agw/contracts';
import {
  type AgentConnection,
  type AgentContext,
  type AgentFlags,
  agentClient,
  EXIT_HAND_OVER,
  resolveAgentConnection,
} from '../agent-context.js';
import { EXIT, ExitError } from '../io.js';
import { withGateway } from '../operator-context.js';
import { colorsFor, renderFields, writeJson } from '../output.js';
import { type PendingOnboarding, type Profile, updateProfile } from '../profiles.js';
import { isInteractive, promptOf, startSpinner, stdinOf } from '../terminal.js';
import { profileFlag, type RegistrationFlags, registerApp } from './register.js';

/** Flags of `agw onboard`. */
export interface OnboardFlags extends AgentFlags, RegistrationFlags {
  readonly orgName?: string | undefined;
  readonly ownerOtp?: string | undefined;
  readonly agentOtp?: string | undefined;
  /** false (`--no-wait`): stop after the codes instead of waiting for the operator. */
  readonly wait?: boolean | undefined;
  /** Print the installation key once, when it is created. */
  readonly showKey?: boolean | undefined;
}

// A mistyped code typed on the terminal is asked again, at most this many times in all.
const CODE_ASKS = 3;

/**
 * `agw onboard`: register → organization → owner code → agent code → operator approval. Every step's
 * result is saved in the profile as soon as it arrives (the installation key before anything else can
 * fail), so running it again after an interruption continues where it stopped.
 */
export async function onboard(flags: OnboardFlags, context: AgentContext): Promise<void> {
  const connection = await resolveAgentConnection(flags, context);
  const save = (update: (current: Profile) => Profile) =>
    updateProfile(context.env, connection.profileName, update);
  let profile = connection.profile;
  let pending = profile.onboarding;
  // Whether this run took an onboarding step: the spec's first poll then comes 30 s after it. A run that
  // only resumes the wait (codes redeemed by an earlier run) polls at once.
  let steppedNow = false;
  if (profile.key !== undefined && pending === undefined) {
    context.io.stderr(
      `Profile '${connection.profileName}' is already onboarded; \`agw whoami${profileFlag(connection)}\` shows its state.\n`,
    );
    return;
  }
  if (pending === undefined) {
    pending = await registerApp(flags, connection, context);
    steppedNow = true;
    context.io.stderr(`Registered app ${pending.app_slug} (${pending.app_id}).\n`);
  } else if (flags.ownerEmail || flags.appSlug) {
    context.io.stderr(
      `Resuming the onboarding of app ${pending.app_slug}; registration flags are ignored.\n`,
    );
  }

  let createdKey: string | undefined;
  if (profile.key === undefined) {
    const created = await createOrganization(flags, connection, context, { pending, save });
    steppedNow = true;
    createdKey = created.installation_key.token;
    // Saved before anything else: the plaintext key cannot be recovered through the interface.
    const onboarding: PendingOnboarding = {
      ...pending,
      bootstrap_key: undefined,
      bootstrap_expires_at: undefined,
      organization_request: undefined,
    };
    profile = await save((current) => ({
      ...current,
      url: connection.url,
      key: created.installation_key.token,
      organization_id: created.organization.id,
      installation_id: created.installation.id,
      onboarding,
    }));
    pending = onboarding;
    context.io.stderr(
      `Organization ${created.organization.name} created; installation key saved in profile '${connection.profileName}' (${connection.configPath}).\n`,
    );
    if (flags.showKey && !flags.json) context.io.stdout(`${created.installation_key.token}\n`);
    stopOnHandOverStates(created);
  }
  const client = agentClient(connection, context, profile.key);

  if (!pending.owner_otp_claimed) {
    await redeemCode({ kind: 'owner', email: pending.owner_email, flag: flags.ownerOtp }, client, context);
    steppedNow = true;
    pending = { ...pending, owner_otp_claimed: true };
    const next = pending;
    await save((current) => ({ ...current, onboarding: next }));
    context.io.stderr('Owner code accepted.\n');
  }
  if (pending.agent_email !== null && !pending.agent_otp_verified) {
    await redeemCode({ kind: 'agent', email: pending.agent_email, flag: flags.agentOtp }, client, context);
    steppedNow = true;
    pending = { ...pending, agent_otp_verified: true };
    const next = pending;
    await save((current) => ({ ...current, onboarding: next }));
    context.io.stderr('Agent mailbox verified.\n');
  }

  if (flags.wait === false) {
    const message = `Codes done; the operator has not approved yet. Check with \`agw whoami${profileFlag(connection)}\`.`;
    if (flags.json) {
      writeJson(context.io, {
        profile: connection.profileName,
        config_path: connection.configPath,
        status: 'pending_approval',
        ...(flags.showKey && createdKey ? { installation_key: createdKey } : {}),
      });
    } else context.io.stdout(`${message}\n`);
    return;
  }
  const current = await waitForApproval(client, profile, context, { resumed: !steppedNow });
  await save(({ onboarding: _done, ...rest }) => rest);
  report(current, connection, { flags, context, createdKey });
}

async function createOrganization(
  flags: OnboardFlags,
  connection: AgentConnection,
  context: AgentContext,
  state: { pending: PendingOnboarding; save: (update: (current: Profile) => Profile) => Promise<Profile> },
): Promise<OrganizationsResponse> {
  const { pending } = state;
  if (pending.bootstrap_key === undefined) {
    throw new ExitError(EXIT.usage, 'the onboarding state has no bootstrap key; run `agw register` again');
  }
  let request = pending.organization_request;
  if (request === undefined) {
    const name = flags.orgName ?? (await askFor('Organization name: ', context));
    if (!name) throw new ExitError(EXIT.usage, 'the organization name is missing: pass --org-name <name>');
    request = { idempotency_key: newIdempotencyKey(), name };
    const saved = request;
    await state.save((current) => ({
      ...current,
      onboarding: { ...pending, organization_request: saved },
    }));
  }
  const bootstrapKey = pending.bootstrap_key;
  const client = agentClient(connection, context);
  return withGateway(() =>
    client.createOrganization(
      {
        owner_email: pending.owner_email,
        ...(pending.agent_email === null ? {} : { agent_email: pending.agent_email }),
        organization: { name: request.name },
      },
      { bootstrapKey, idempotencyKey: request.idempotency_key },
    ),
  );
}

/** Spec rules 3–4: states of the /organizations answer that end onboarding (the key is saved by then). */
function stopOnHandOverStates(created: OrganizationsResponse): void {
  if (created.organization.is_active === false) handOver('The organization is inactive.');
  if (created.installation.operator_approval_status === 'blocked') {
    handOver('The operator blocked this installation.');
  }
  if (created.owner_otp_delivery.status === 'suppressed') {
    handOver('The owner code was not sent: the owner address is suppressed. Resending does not help.');
  }
  if (created.agent_otp_delivery?.status === 'suppressed') {
    handOver('The agent code was not sent: the agent address is suppressed. Resending does not help.');
  }
}

function handOver(message: string): never {
  throw new ExitError(EXIT_HAND_OVER, `${message} Stop and hand over to a human.`);
}

interface CodeStep {
  readonly kind: 'owner' | 'agent';
  readonly email: string;
  readonly flag: string | undefined;
}

/** Reads a code (flag, terminal, or the next stdin line) and redeems it; asks again when mistyped. */
async function redeemCode(step: CodeStep, client: GatewayClient, context: AgentContext): Promise<void> {
  const label = step.kind === 'owner' ? 'Owner code' : 'Agent code';
  const asks = step.flag === undefined && isInteractive(context) ? CODE_ASKS : 1;
  for (let attempt = 1; ; attempt += 1) {
    const otp =
      step.flag ?? (await askFor(`${label} (sent to ${step.email}): `, context, await stdinLines(context)));
    if (!otp) {
      throw new ExitError(
        EXIT.usage,
        `the ${step.kind} code is missing: pass --${step.kind}-otp <code>, type it on a terminal, or pipe it on stdin`,
      );
    }
    try {
      if (step.kind === 'owner') await client.claimOwnerOtp({ otp });
      else await client.verifyAgentOtp({ otp });
      return;
    } catch (error) {
      if (GatewayError.isGatewayError(error)) {
        if (error.code === 'installation_blocked') handOver('The operator blocked this installation.');
        if (error.code === 'organization_inactive') handOver('The organization is inactive.');
        if (error.code === 'otp_invalid' && attempt < asks) {
          context.io.stderr('That code is not valid; try again.\n');
          continue;
        }
      }
      return withGateway(() => Promise.reject(error));
    }
  }
}

// Piped stdin is read once and handed out line by line (owner code first, then agent code).
const pipedLines = new WeakMap<AgentContext, string[]>();

async function stdinLines(context: AgentContext): Promise<string[] | undefined> {
  if (isInteractive(context)) return undefined;
  let lines = pipedLines.get(context);
  if (lines === undefined) {
    lines = (await stdinOf(context)()).split(/\r?\n/).map((line) => line.trim());
    lines = lines.filter((line) => line !== '');
    pipedLines.set(context, lines);
  }
  return lines;
}

async function askFor(question: string, context: AgentContext, piped?: string[]): Promise<string> {
  if (piped !== undefined) return piped.shift() ?? '';
  if (!isInteractive(context)) return '';
  return (await promptOf(context)(question)).trim();
}

/**
 * The spec's polling rule through client.waitForApproval, with a spinner on a terminal. A resumed wait
 * (no onboarding step in this run) polls at once: its 30 s since the last step are long past.
 */
async function waitForApproval(
  client: GatewayClient,
  profile: Profile,
  context: AgentContext,
  options: { resumed: boolean },
): Promise<OrgCurrentResponse> {
  const spinner = startSpinner(
    context.io,
    options.resumed
      ? 'Checking operator approval (then once a minute, up to 15 min)…'
      : 'Waiting for operator approval (first check in 30 s, then once a minute, up to 15 min)…',
  );
  try {
    const current = await client.waitForApproval({
      organizationId: profile.organization_id,
      installationId: profile.installation_id,
      ...(options.resumed ? { firstPollAfterMs: 0 } : {}),
      onPoll: (event) =>
        spinner.update(
          `Waiting for operator approval: check ${event.attempt} said ${event.outcome.replace('_', ' ')}; next in ${Math.round(event.nextPollInMs / 1000)} s…`,
        ),
    });
    spinner.stop('Approved by the operator.');
    return current;
  } catch (error) {
    spinner.stop();
    if (HandOverToHumanError.isHandOverToHumanError(error)) {
      throw new ExitError(EXIT_HAND_OVER, error.message);
    }
    return withGateway(() => Promise.reject(error));
  }
}

function report(
  current: OrgCurrentResponse,
  connection: AgentConnection,
  options: { flags: OnboardFlags; context: AgentContext; createdKey: string | undefined },
): void {
  const { flags, context } = options;
  if (flags.json) {
    writeJson(context.io, {
      profile: connection.profileName,
      config_path: connection.configPath,
      status: 'approved',
      organization: current.organization,
      installation: current.installation,
      ...(flags.showKey && options.createdKey ? { installation_key: options.createdKey } : {}),
    });
    return;
  }
  context.io.stdout(
    renderFields(
      [
        ['organization', `${current.organization.name} (${current.organization.id})`],
        ['installation', current.installation.id],
        ['status', current.installation.operator_approval_status],
        ['scopes', current.installation.scopes.join(' ') || '-'],
        ['key', `saved in profile '${connection.profileName}' (${connection.configPath})`],
      ],
      colorsFor(context.io, context.env),
    ),
  );
}
