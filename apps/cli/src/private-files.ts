import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import type { Env } from './operator-context.js';

// XDG Base Directory spec: the variable and the default under HOME of each kind of file agw keeps.
const XDG_HOMES = {
  config: { variable: 'XDG_CONFIG_HOME', fallback: ['.config'] },
  state: { variable: 'XDG_STATE_HOME', fallback: ['.local', 'state'] },
} as const;

/**
 * `$XDG_<KIND>_HOME/agw/<name>`, else `~/.config/agw/<name>` (config) or `~/.local/state/agw/<name>`
 * (state); undefined when neither variable is set.
 */
export function xdgFile(env: Env, kind: keyof typeof XDG_HOMES, name: string): string | undefined {
  const { variable, fallback } = XDG_HOMES[kind];
  const xdg = env[variable]?.trim();
  // The XDG spec says a relative XDG_*_HOME is invalid and must be ignored.
  if (xdg && isAbsolute(xdg)) return join(xdg, 'agw', name);
  const home = env.HOME?.trim();
  return home ? join(home, ...fallback, 'agw', name) : undefined;
}

/**
 * Writes `text` atomically and readable by its owner only: a temp file with mode 0600 in the same
 * directory (created 0700), then rename, so a crash never leaves a half-written file.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text, { mode: 0o600 });
    // writeFile's mode is filtered by the umask; make sure it is exactly 0600.
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
