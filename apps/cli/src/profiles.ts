import { readFile } from 'node:fs/promises';
import { EXIT, ExitError } from './io.js';
import type { Env } from './operator-context.js';
import { writePrivateFile, xdgFile } from './private-files.js';

/**
 * Onboarding progress kept between runs of `agw register` / `agw onboard`, so an interrupted onboarding
 * resumes where it stopped. Written as soon as each step's result arrives.
 */
export interface PendingOnboarding {
  readonly owner_email: string;
  readonly agent_email: string | null;
  readonly app_id: string;
  readonly app_slug: string;
  /** The bootstrap key from /register; dropped once /organizations answered. */
  readonly bootstrap_key?: string | undefined;
  readonly bootstrap_expires_at?: string | undefined;
  /**
   * The /organizations request, saved before it is sent: a run that lost the answer (crash, network)
   * sends the same body with the same Idempotency-Key again, and the gateway replays the installation key.
   */
  readonly organization_request?: { readonly idempotency_key: string; readonly name: string } | undefined;
  readonly owner_otp_claimed?: boolean | undefined;
  readonly agent_otp_verified?: boolean | undefined;
}

/** One named profile of the config file. */
export interface Profile {
  readonly url?: string | undefined;
  /** The installation key. Never printed except when created and asked for (`--show-key`). */
  readonly key?: string | undefined;
  readonly organization_id?: string | undefined;
  readonly installation_id?: string | undefined;
  readonly onboarding?: PendingOnboarding | undefined;
}

/** The whole config file. */
export interface AgentConfig {
  readonly profiles: Readonly<Record<string, Profile>>;
}

/** The profile used when `--profile` is not given. */
export const DEFAULT_PROFILE = 'default';

/** `$XDG_CONFIG_HOME/agw/config.json`, else `~/.config/agw/config.json` (XDG Base Directory spec). */
export function configPath(env: Env): string {
  const path = xdgFile(env, 'config', 'config.json');
  if (path === undefined) {
    throw new ExitError(EXIT.usage, 'cannot locate the config file: set XDG_CONFIG_HOME or HOME');
  }
  return path;
}

/** Reads the config file; a missing file is an empty config. Exit 2 when it is not valid JSON. */
export async function readConfig(env: Env): Promise<AgentConfig> {
  const path = configPath(env);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new ExitError(EXIT.usage, `cannot read ${path}: ${error.code ?? error.message}`);
  });
  if (text === undefined) return { profiles: {} };
  try {
    const parsed = JSON.parse(text) as Partial<AgentConfig>;
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
    return { profiles: { ...(parsed.profiles ?? {}) } };
  } catch (error) {
    throw new ExitError(
      EXIT.usage,
      `${path} is not a valid agw config file (${(error as Error).message}); fix or remove it`,
    );
  }
}

/** One profile (empty when it does not exist yet). */
export async function readProfile(env: Env, name: string): Promise<Profile> {
  return (await readConfig(env)).profiles[name] ?? {};
}

/** Replaces one profile with `update(current)` and writes the file atomically, mode 0600. */
export async function updateProfile(
  env: Env,
  name: string,
  update: (current: Profile) => Profile,
): Promise<Profile> {
  const path = configPath(env);
  const config = await readConfig(env);
  const next = update(config.profiles[name] ?? {});
  const content = `${JSON.stringify({ profiles: { ...config.profiles, [name]: next } }, null, 2)}\n`;
  await writePrivateFile(path, content);
  return next;
}
