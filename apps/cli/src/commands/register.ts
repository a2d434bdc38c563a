import type { RegisterRequest } from '@agw/contracts';
import {
  type AgentConnection,
  type AgentContext,
  type AgentFlags,
  agentClient,
  resolveAgentConnection,
} from '../agent-context.js';
import { EXIT, ExitError } from '../io.js';
import { withGateway } from '../operator-context.js';
import { colorsFor, renderFields, writeJson } from '../output.js';
import { type PendingOnboarding, updateProfile } from '../profiles.js';

/** The registration flags (shared by `agw register` and `agw onboard`). */
export interface RegistrationFlags {
  readonly ownerEmail?: string | undefined;
  readonly agentEmail?: string | undefined;
  readonly appSlug?: string | undefined;
  readonly appName?: string | undefined;
  readonly description?: string | undefined;
  readonly homepageUrl?: string | undefined;
  readonly contactEmail?: string | undefined;
}

/** Flags of `agw register`. */
export interface RegisterFlags extends AgentFlags, RegistrationFlags {}

/** `agw register`: POST /register, keeps the bootstrap key in the profile, prints the next step. */
export async function register(flags: RegisterFlags, context: AgentContext): Promise<void> {
  const connection = await resolveAgentConnection(flags, context);
  const pending = await registerApp(flags, connection, context);
  if (flags.json) {
    // The bootstrap key stays in the profile: it is a credential, not output.
    writeJson(context.io, {
      profile: connection.profileName,
      config_path: connection.configPath,
      app: { id: pending.app_id, slug: pending.app_slug },
      owner_email: pending.owner_email,
      agent_email: pending.agent_email,
      bootstrap_expires_at: pending.bootstrap_expires_at,
    });
    return;
  }
  const colors = colorsFor(context.io, context.env);
  context.io.stdout(
    renderFields(
      [
        ['app', `${pending.app_slug} (${pending.app_id})`],
        ['owner email', pending.owner_email],
        ['agent email', pending.agent_email ?? '-'],
        ['bootstrap key', `saved in profile '${connection.profileName}' (${connection.configPath})`],
        ['expires', pending.bootstrap_expires_at ?? '-'],
      ],
      colors,
    ),
  );
  context.io.stdout(
    `\nNext: agw onboard --org-name "<organization name>"${profileFlag(connection)} (before the bootstrap key expires)\n`,
  );
}

/**
 * Registers the app and stores the bootstrap key as pending onboarding in the profile. Refuses (exit 2)
 * when the profile already holds an installation key or an onboarding past /organizations: that key
 * cannot be recovered, so it is never overwritten.
 */
export async function registerApp(
  flags: RegistrationFlags,
  connection: AgentConnection,
  context: AgentContext,
): Promise<PendingOnboarding> {
  if (connection.profile.key !== undefined) {
    throw new ExitError(
      EXIT.usage,
      `profile '${connection.profileName}' already holds an installation key; use another --profile to register again`,
    );
  }
  const body = registrationBody(flags);
  const client = agentClient(connection, context);
  const registered = await withGateway(() => client.register(body));
  const pending: PendingOnboarding = {
    owner_email: body.owner_email,
    agent_email: registered.agent_email,
    app_id: registered.app.id,
    app_slug: registered.app.slug,
    bootstrap_key: registered.bootstrap_key.token,
    bootstrap_expires_at: registered.bootstrap_key.expires_at,
  };
  await updateProfile(context.env, connection.profileName, (current) => ({
    ...current,
    url: connection.url,
    onboarding: pending,
  }));
  return pending;
}

function registrationBody(flags: RegistrationFlags): RegisterRequest {
  const missing = [
    flags.ownerEmail ? undefined : '--owner-email',
    flags.appSlug ? undefined : '--app-slug',
    flags.appName ? undefined : '--app-name',
  ].filter((flag) => flag !== undefined);
  if (missing.length > 0 || !flags.ownerEmail || !flags.appSlug || !flags.appName) {
    throw new ExitError(EXIT.usage, `registration needs ${missing.join(', ')}`);
  }
  return {
    owner_email: flags.ownerEmail,
    ...(flags.agentEmail ? { agent_email: flags.agentEmail } : {}),
    app: {
      slug: flags.appSlug,
      name: flags.appName,
      ...(flags.description ? { description: flags.description } : {}),
      ...(flags.homepageUrl ? { homepage_url: flags.homepageUrl } : {}),
      ...(flags.contactEmail ? { contact_email: flags.contactEmail } : {}),
    },
  };
}

/** ` --profile <name>` when not the default, for printed next steps. */
export function profileFlag(connection: AgentConnection): string {
  return connection.profileName === 'default' ? '' : ` --profile ${connection.profileName}`;
}
