import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// Shared with the gateway's tests: a copy of an initialized PGlite cluster saves an initdb (and a
// migrated one, the migrations), a PostgreSQL template database the migrations.
import { copyPgliteTemplate } from '../../../gateway/test/helpers/pglite-template.js';
import { admin, postgresTemplate } from '../../../gateway/test/helpers/postgres-template.js';

const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const binSource = fileURLToPath(new URL('../../src/bin.ts', import.meta.url));
const binBuilt = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

/** The result of a finished CLI run. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Node's arguments before the CLI's own. From source by default (tsx, workspace packages resolved to
 * their src through the `@agw/source` condition), so a test never runs a stale build. `npm test` builds
 * first and sets AGW_TEST_CLI=dist: the fresh build starts in 0.4 s instead of 1.1 s, and the suite
 * spawns the CLI a few hundred times, twice in CI.
 */
const cliEntry: readonly string[] =
  process.env.AGW_TEST_CLI === 'dist'
    ? [binBuilt]
    : ['--conditions=@agw/source', '--import', 'tsx', binSource];

/**
 * XDG_STATE_HOME of spawned CLIs unless a test sets its own: a spawned `agw serve` writes its state file
 * there, never in the home of the user running the tests, and other commands never read the user's.
 */
export const testStateHome = join(tmpdir(), `agw-cli-test-state-${process.pid}`);

/**
 * Spawns the CLI (see {@link cliEntry}) in the repository root. Only PATH and HOME are inherited from
 * this process (XDG_STATE_HOME is {@link testStateHome}); `stdin: 'pipe'` for a test that writes to it.
 */
export function spawnCli(
  args: readonly string[],
  env: Record<string, string>,
  options: { readonly stdin?: 'ignore' | 'pipe' } = {},
): ChildProcess {
  return spawn(process.execPath, [...cliEntry, ...args], {
    cwd: repositoryRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      XDG_STATE_HOME: testStateHome,
      ...env,
    },
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
}

/** Runs the CLI to completion. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * A temp DATA_DIR (its PGlite cluster initialized) and, when DATABASE_URL is set, a fresh PostgreSQL
 * database for this test file; REDIS_URL passes through. Without gateway tables, for `agw migrate` and
 * `agw serve` to create them; `migrated` copies a template that has them (a gateway started in the test).
 */
export async function createCliEnvironment(options: { readonly migrated?: boolean } = {}): Promise<{
  env: Record<string, string>;
  cleanup(): Promise<void>;
}> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agw-cli-test-'));
  const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  const adminUrl = process.env.DATABASE_URL;
  const name = `agw_test_${randomBytes(6).toString('hex')}`;
  if (adminUrl) {
    const template = options.migrated ? ` template ${await postgresTemplate(adminUrl)}` : '';
    await admin(adminUrl, `create database ${name}${template}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.href;
  }
  if (!adminUrl) await copyPgliteTemplate(join(dataDir, 'pglite'), { migrated: options.migrated });
  if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  return {
    env,
    async cleanup() {
      if (adminUrl) await admin(adminUrl, `drop database if exists ${name} with (force)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
