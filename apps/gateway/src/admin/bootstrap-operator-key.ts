import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseApiKey } from '@agw/guard';
import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import { countActiveOperatorKeys, createOperatorKey, findOperatorKey } from './operator-keys.js';

/** The file, under DATA_DIR, that holds the first operator key. */
export const OPERATOR_KEY_FILE = 'operator.key';

/** What {@link ensureOperatorKey} found or did. */
export type OperatorKeyBootstrap =
  /** No active operator key existed: one was created and written to the file. */
  | { readonly outcome: 'created'; readonly path: string; readonly prefix: string }
  /** Active operator keys exist; the file holds one of them. */
  | { readonly outcome: 'file_active'; readonly path: string; readonly prefix: string }
  /** Active operator keys exist; the file is absent. */
  | { readonly outcome: 'no_file'; readonly path: string }
  /** Active operator keys exist; the file holds a revoked, expired, unknown or malformed key. */
  | { readonly outcome: 'file_stale'; readonly path: string; readonly prefix: string | undefined };

// Serializes the check-and-create across gateway instances sharing one PostgreSQL database.
const BOOTSTRAP_LOCK_SQL = "select pg_advisory_xact_lock(hashtext('agw.operator_key_bootstrap'))";

/**
 * Makes the first operator key obtainable where only the gateway can open the database (embedded
 * PGlite): when no active operator key exists, creates one and writes its token to
 * `DATA_DIR/operator.key` with mode 0600. Logs the path, never the token. When keys exist, only reports
 * on the file (a warning when it holds a key that no longer works). Run after migrations.
 */
export async function ensureOperatorKey(
  knex: Knex,
  dataDir: string,
  logger: Logger,
): Promise<OperatorKeyBootstrap> {
  const path = join(dataDir, OPERATOR_KEY_FILE);
  const result = await knex.transaction(async (trx) => {
    await trx.raw(BOOTSTRAP_LOCK_SQL);
    if ((await countActiveOperatorKeys(trx)) > 0) return undefined;
    const created = await createOperatorKey(trx, { label: 'bootstrap (operator.key)' });
    // Written before commit: if the write fails, the key is rolled back rather than lost unseen.
    await writeSecretFile(path, `${created.token}\n`);
    return created;
  });
  if (result) {
    logger.info(
      { path, prefix: result.key.prefix },
      `created the first operator key; its token is in ${path} (mode 0600)`,
    );
    return { outcome: 'created', path, prefix: result.key.prefix };
  }
  const content = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (content === undefined) {
    logger.info({ path }, 'operator keys exist; no operator.key file in DATA_DIR');
    return { outcome: 'no_file', path };
  }
  const prefix = parseApiKey(content.trim())?.prefix;
  const key = prefix === undefined ? undefined : await findOperatorKey(knex, prefix);
  if (key?.status === 'active' && prefix !== undefined) {
    logger.info({ path, prefix }, `operator key file ${path} holds an active operator key`);
    return { outcome: 'file_active', path, prefix };
  }
  logger.warn(
    { path, prefix, status: key?.status ?? 'unknown' },
    `${path} holds an operator key that no longer works (${key?.status ?? 'unknown'}); other operator keys exist, so no new one was created`,
  );
  return { outcome: 'file_stale', path, prefix };
}

/**
 * Writes `content` to `path` with mode 0600 atomically: a temp file created 0600 in the same directory,
 * then renamed over the target, so no reader ever sees a partial or world-readable file.
 */
export async function writeSecretFile(path: string, content: string): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, content, { mode: 0o600, flag: 'wx' });
    // The umask can only remove bits; chmod makes the mode exact whatever it is.
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
