import { readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import type { CommandContext } from './context.js';
import type { Env } from './operator-context.js';
import { writePrivateFile, xdgFile } from './private-files.js';

/**
 * Where a running `agw serve` is, written by it at start so that commands in another shell find it
 * without AGW_URL and DATA_DIR (flags and environment variables still win).
 */
export interface ServeState {
  /** The address it listens on, with the port it actually bound (also when started with --port 0). */
  readonly url: string;
  /** Its DATA_DIR, absolute: operator.key and the dev mailbox live there. */
  readonly data_dir: string;
  readonly pid: number;
  readonly started_at: string;
}

/**
 * `$XDG_STATE_HOME/agw/serve.json`, else `~/.local/state/agw/serve.json` (XDG Base Directory spec: state
 * that outlives a command but is not worth backing up). Undefined when neither variable is set.
 */
export function serveStatePath(env: Env): string | undefined {
  return xdgFile(env, 'state', 'serve.json');
}

/**
 * Writes the state atomically (temp file with mode 0600, then rename) in a 0700 directory. The last
 * `agw serve` started wins when several run.
 */
export async function writeServeState(env: Env, state: ServeState): Promise<string | undefined> {
  const path = serveStatePath(env);
  if (path === undefined) return undefined;
  await writePrivateFile(path, `${JSON.stringify(state, null, 2)}\n`);
  return path;
}

/** Removes the state file if it still names this process (a later `agw serve` may have replaced it). */
export async function removeServeState(env: Env, pid: number): Promise<void> {
  const path = serveStatePath(env);
  if (path === undefined) return;
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text !== undefined && parseState(text)?.pid === pid) await rm(path, { force: true });
}

// Read once per command run (several resolvers ask), so a stale file is reported once.
const seen = new WeakMap<Env, ServeState | null>();

/**
 * The running `agw serve` of this user, or undefined: no state file, an unreadable one, or one whose
 * process is gone (then a line on stderr says it was ignored).
 */
export function runningGateway(context: CommandContext): ServeState | undefined {
  const cached = seen.get(context.env);
  if (cached !== undefined) return cached ?? undefined;
  const state = readRunning(context);
  seen.set(context.env, state ?? null);
  return state;
}

function readRunning(context: CommandContext): ServeState | undefined {
  const path = serveStatePath(context.env);
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const state = parseState(text);
  if (state === undefined) {
    context.io.stderr(`agw: ignoring ${path}: not a state file written by agw serve\n`);
    return undefined;
  }
  if (!isAlive(state.pid)) {
    context.io.stderr(
      `agw: ignoring ${path}: the agw serve that wrote it (pid ${state.pid}) is no longer running\n`,
    );
    return undefined;
  }
  return state;
}

function parseState(text: string): ServeState | undefined {
  try {
    const value = JSON.parse(text) as Partial<ServeState>;
    const { url, data_dir: dataDir, pid, started_at: startedAt } = value;
    if (typeof url !== 'string' || typeof dataDir !== 'string') return undefined;
    // pid 0 or below would address a process group, not the server.
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
    return { url, data_dir: dataDir, pid, started_at: String(startedAt ?? '') };
  } catch {
    return undefined;
  }
}

/** Signal 0 checks that the process exists; EPERM means it exists but belongs to someone else. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
