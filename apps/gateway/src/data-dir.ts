import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { ConfigError, type GatewayConfig } from './config.js';

/**
 * The data folder is private to the user the gateway runs as (issue 12, finding 1: the embedded
 * database was world-readable and -writable, so any local user could read documents, emails and
 * idempotency keys). Everything created under DATA_DIR is 0700 (folders) / 0600 (files).
 */
const PRIVATE_UMASK = 0o077;
const GROUP_OTHER_BITS = 0o077;

/** What DATA_DIR holds that must not be open to other users (checked when present). */
const PRIVATE_ENTRIES = ['pglite', 'mail', 'secret.key', 'operator.key'] as const;

/**
 * Makes every file and folder this process creates from now on owner-only (umask 077), whatever the
 * umask it was started with. Worker threads cannot change the umask; they share the process's.
 */
export function usePrivateUmask(): void {
  if (isMainThread) process.umask(PRIVATE_UMASK);
}

/**
 * Creates DATA_DIR (0700) when missing and refuses to start — with a one-line {@link ConfigError}
 * naming the path and the fix — when DATA_DIR, its database folder, its mailbox or a key file is
 * readable, writable or searchable by group or others: a data folder created by an older version (0755,
 * files 0666) must be fixed, not silently served. DATA_DIR_ALLOW_SHARED=true skips the check.
 */
export function preparePrivateDataDir(config: GatewayConfig): void {
  usePrivateUmask();
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  if (config.dataDirAllowShared) return;
  for (const path of [config.dataDir, ...PRIVATE_ENTRIES.map((name) => join(config.dataDir, name))]) {
    const mode = modeOf(path);
    if (mode === undefined || (mode & GROUP_OTHER_BITS) === 0) continue;
    throw new ConfigError(
      'DATA_DIR',
      `DATA_DIR: ${path} is open to other users (mode ${octal(mode)}); fix it with \`chmod -R go-rwx ${config.dataDir}\`, or set DATA_DIR_ALLOW_SHARED=true to start anyway`,
    );
  }
}

/**
 * Removes group and other permissions from everything under `directory` (not following links).
 * PGlite writes its cluster with modes of its own (0666 files from its initdb, pg_internal.init 0644
 * at every start) whatever the umask; the 0700 folders already keep other users out, this makes the
 * files themselves 0600 too. Runs once at start, after the database opened (about 1 000 entries).
 */
export function tightenTree(directory: string): void {
  const pending = [directory];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (stat === undefined || stat.isSymbolicLink()) continue;
    if ((stat.mode & GROUP_OTHER_BITS) !== 0) chmodSync(current, stat.mode & 0o700);
    if (stat.isDirectory()) {
      for (const name of readdirSync(current)) pending.push(join(current, name));
    }
  }
}

function modeOf(path: string): number | undefined {
  return statSync(path, { throwIfNoEntry: false })?.mode;
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}
