// What a test needs from the machine beyond Node: a program (chromium, qpdf, redis-server…) or a
// privilege (root with an unprivileged account to switch to). Outside CI a test without it skips and
// says why; in CI (`CI` set) the test file fails naming what is missing, so a green CI never hides a
// suite that did not run. `npm test` installs the programs first (scripts/ensure-test-tools.mjs).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const INSTALL = 'install it (scripts/ensure-test-tools.mjs)';

/** Whether this run is CI: `CI` set to anything but an empty string, `0` or `false`. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI !== undefined && !/^(|0|false)$/i.test(env.CI);
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The path of `program`: itself when it contains a slash, else the first executable of that name on PATH. */
export function findProgram(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (program.includes('/')) return executable(program) ? program : undefined;
  for (const directory of (env.PATH ?? '').split(delimiter)) {
    if (directory !== '' && executable(join(directory, program))) return join(directory, program);
  }
  return undefined;
}

/**
 * Undefined when `what` is there; otherwise the reason to skip, `<what> is missing: <remedy>` — or,
 * in CI, that reason thrown. Use it where the file is collected, so CI fails the file rather than one
 * test: `describe.skipIf(need('…', present, '…'))(…)`.
 */
export function need(what: string, present: boolean, remedy = INSTALL): string | undefined {
  if (present) return undefined;
  const reason = `${what} is missing: ${remedy}`;
  if (inCi()) throw new Error(`${reason} (CI is set: a test must not pass by skipping)`);
  return reason;
}

/**
 * Undefined when every program is found (on PATH, or at a path given with a slash), else the reason
 * naming the first one missing; in CI that reason is thrown. E.g. `describe.skipIf(requireTool('qpdf'))`.
 */
export function requireTool(...programs: string[]): string | undefined {
  const missing = programs.find((program) => findProgram(program) === undefined);
  return missing === undefined ? undefined : need(missing, false);
}

/**
 * Undefined when this process may run commands as the unprivileged account `user` (root, runuser and
 * the account exist), else the reason; in CI that reason is thrown.
 */
export function requireUnprivilegedUser(user = 'nobody'): string | undefined {
  const can =
    process.getuid?.() === 0 &&
    spawnSync('runuser', ['-u', user, '--', 'true'], { stdio: 'ignore' }).status === 0;
  return need(
    `the unprivileged user (runuser -u ${user} as root)`,
    can,
    `run the tests as root on a system with runuser and a ${user} account`,
  );
}
