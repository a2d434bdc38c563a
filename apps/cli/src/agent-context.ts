import { type ClientOptions, createClient, type GatewayClient } from '@agw/client';
import type { CommandContext } from './context.js';
import { EXIT, ExitError } from './io.js';
import { resolveGatewayUrl } from './operator-context.js';
import { configPath, DEFAULT_PROFILE, type Profile, readProfile } from './profiles.js';

/** Flags every agent command accepts. */
export interface AgentFlags {
  /** Profile name in the config file (default `default`). */
  readonly profile?: string | undefined;
  /** Gateway address; wins over AGW_URL and the profile's url. */
  readonly url?: string | undefined;
  /** Print JSON for scripts. */
  readonly json?: boolean | undefined;
}

/**
 * Exit code when onboarding must stop and a human take over: blocked, suppressed code delivery,
 * inactive organization, or no approval after 15 minutes (spec: States and transitions, rules 3–4).
 */
export const EXIT_HAND_OVER = 6;

/** What agent commands receive: the operator context plus the terminal input, injectable for tests. */
export interface AgentContext extends CommandContext {
  /** Asks one question on the terminal and returns the answer; defaults to node:readline on the TTY. */
  readonly prompt?: (question: string) => Promise<string>;
  /** True when answers can be asked for interactively (stdin is a TTY). */
  readonly interactive?: boolean;
  /** The whole of stdin (for `-` params and piped codes). */
  readonly readStdin?: () => Promise<string>;
  /** Extra client options (tests inject `sleep`/`now` to run the approval wait without real time). */
  readonly clientOptions?: Partial<Pick<ClientOptions, 'sleep' | 'now' | 'fetch'>>;
}

/** The resolved connection of an agent command. */
export interface AgentConnection {
  readonly profileName: string;
  readonly profile: Profile;
  readonly url: string;
  /** AGW_KEY, else the profile's key. */
  readonly key: string | undefined;
  readonly configPath: string;
}

/**
 * URL: --url, AGW_URL, the profile's url, the running `agw serve`'s, the default. Key: AGW_KEY, then the
 * profile's key.
 */
export async function resolveAgentConnection(
  flags: AgentFlags,
  context: AgentContext,
): Promise<AgentConnection> {
  const profileName = flags.profile ?? DEFAULT_PROFILE;
  const profile = await readProfile(context.env, profileName);
  const envUrl = context.env.AGW_URL?.trim() ? context.env.AGW_URL : undefined;
  const url = resolveGatewayUrl({ url: flags.url ?? envUrl ?? profile.url }, context);
  const envKey = context.env.AGW_KEY?.trim();
  return {
    profileName,
    profile,
    url,
    key: envKey ? envKey : profile.key,
    configPath: configPath(context.env),
  };
}

/** A client for the connection; `apiKey` omitted sends no credentials. */
export function agentClient(
  connection: AgentConnection,
  context: AgentContext,
  apiKey?: string,
): GatewayClient {
  return createClient({
    baseUrl: connection.url,
    userAgent: 'agw-cli',
    ...(apiKey === undefined ? {} : { apiKey }),
    ...context.clientOptions,
  });
}

/** The connection's key, or exit 2 explaining how to get one. */
export function requireKey(connection: AgentConnection): string {
  if (connection.key) return connection.key;
  throw new ExitError(
    EXIT.usage,
    `no installation key in profile '${connection.profileName}' (${connection.configPath}): run \`agw onboard\` or set AGW_KEY`,
  );
}
