import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built CLI (`npm test` builds before it tests). */
export const AGW_BIN = fileURLToPath(new URL('../../../apps/cli/dist/bin.js', import.meta.url));

/** One spawned `agw serve`. */
export interface Served {
  readonly url: string;
  readonly child: ChildProcess;
  /** Its last log lines (stdout and stderr), for a failure message. */
  readonly log: readonly string[];
}

const LOG_LINES = 200;
const children = new Set<ChildProcess>();
// A test process that dies mid-test takes its gateways with it.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Spawns `agw serve` with `env` over the test process's environment and resolves with its URL from
 * the "listening" log line (bounded: `timeoutMs`, 30 s by default). Stop it with {@link stop} or
 * {@link kill}; a process that fails to start is killed before the promise rejects.
 */
export function serve(env: Record<string, string>, timeoutMs = 30_000): Promise<Served> {
  const child = spawn(process.execPath, [AGW_BIN, 'serve'], {
    // The URL comes from the info-level "listening" line, so LOG_LEVEL is info whatever `env` says.
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const log: string[] = [];
  const keep = (line: string) => {
    log.push(line);
    if (log.length > LOG_LINES) log.shift();
  };
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', keep);
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`agw serve ${reason}\n${log.slice(-20).join('\n')}`));
    };
    const timer = setTimeout(() => fail(`did not start in ${timeoutMs} ms`), timeoutMs);
    // 'close', not 'exit': 'exit' can come before the last lines of stderr, which say why.
    child.once('close', (code, signal) => fail(`exited with ${code ?? signal}`));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      keep(line);
      const url = /"url":"(http:[^"]+)"/.exec(line)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('close');
      resolve({ url, child, log });
    });
  });
}

/** SIGTERM (graceful: in-flight requests finish) and wait for the exit; SIGKILL after `timeoutMs`. */
export function stop(served: Served | undefined, timeoutMs = 15_000): Promise<void> {
  if (served === undefined || served.child.exitCode !== null || served.child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => served.child.kill('SIGKILL'), timeoutMs);
    served.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    served.child.kill('SIGTERM');
  });
}

/** SIGKILL (a crash: nothing finishes, nothing is cleaned up) and wait for the exit. */
export function kill(served: Served | undefined): Promise<void> {
  if (served === undefined || served.child.exitCode !== null || served.child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    served.child.once('exit', () => resolve());
    served.child.kill('SIGKILL');
  });
}
