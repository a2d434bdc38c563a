import type { OperatorKey } from '@agw/client/admin';
import type { CommandContext } from '../context.js';
import { EXIT, ExitError } from '../io.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import { type Colors, colorsFor, formatTime, renderTable, writeJson } from '../output.js';

/** Flags of `agw operator key create`. */
export interface OperatorKeyCreateFlags extends OperatorFlags {
  readonly label?: string | undefined;
  /** Write straight to DATABASE_URL instead of calling a running gateway. */
  readonly database?: boolean | undefined;
}

/**
 * `agw operator key create`: a new operator key through the admin API, or with `--database` straight
 * into the PostgreSQL database at DATABASE_URL. The token is printed once, on stdout only.
 */
export async function operatorKeyCreate(
  flags: OperatorKeyCreateFlags,
  context: CommandContext,
): Promise<void> {
  const created = flags.database
    ? await createInDatabase(flags, context)
    : await withGateway(async () =>
        (await operatorClient(flags, context)).createOperatorKey(flags.label ? { label: flags.label } : {}),
      );
  if (flags.json) {
    writeJson(context.io, { key: created.key, token: created.token });
    return;
  }
  context.io.stdout(
    `Created operator key ${created.key.prefix}${created.key.label ? ` (${created.key.label})` : ''}.\n` +
      'Its token is shown only this once; store it now (e.g. export AGW_OPERATOR_KEY=...):\n' +
      `${created.token}\n`,
  );
}

/** `agw operator key list`: prefix, label, status, created and last used; never a secret. */
export async function operatorKeyList(flags: OperatorFlags, context: CommandContext): Promise<void> {
  const client = await operatorClient(flags, context);
  const keys = await withGateway(() => client.listOperatorKeys());
  if (flags.json) {
    writeJson(context.io, { operator_keys: keys });
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const rows = keys.map((key) => [
    key.prefix,
    key.label ?? '-',
    statusText(key, colors),
    formatTime(key.created_at),
    formatTime(key.last_used_at),
    formatTime(key.revoked_at),
  ]);
  context.io.stdout(
    renderTable(['PREFIX', 'LABEL', 'STATUS', 'CREATED', 'LAST USED', 'REVOKED'], rows, colors),
  );
}

/** `agw operator key revoke <prefix>`: the key stops working at once (the last active key cannot go). */
export async function operatorKeyRevoke(
  prefix: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const key = await withGateway(() => client.revokeOperatorKey(prefix));
  if (flags.json) {
    writeJson(context.io, { key });
    return;
  }
  context.io.stdout(`Operator key ${key.prefix} is revoked (since ${formatTime(key.revoked_at)}).\n`);
}

function statusText(key: OperatorKey, colors: Colors): string {
  if (key.status === 'active') return colors.green(key.status);
  return colors.red(key.status);
}

/**
 * The one CLI path that touches the database: bootstrapping an operator key on a shared PostgreSQL
 * where no gateway has written DATA_DIR/operator.key for this operator (or every key is lost). It needs
 * DATABASE_URL (embedded PGlite can only be opened by the gateway process itself) and migrated tables.
 * The creation is audited as actor `cli:database`.
 */
async function createInDatabase(
  flags: OperatorKeyCreateFlags,
  context: CommandContext,
): Promise<{ key: OperatorKey; token: string }> {
  const databaseUrl = context.env.DATABASE_URL?.trim();
  if (!databaseUrl) {
    throw new ExitError(
      EXIT.usage,
      '--database needs DATABASE_URL (PostgreSQL). On the embedded database, use DATA_DIR/operator.key, created at the first gateway start.',
    );
  }
  const { ConfigError, loadConfig, openDatabase, createOperatorKey } = await import('@agw/gateway');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ ...context.env, DATABASE_URL: databaseUrl }, { dataDir: flags.dataDir });
  } catch (error) {
    if (error instanceof ConfigError) throw new ExitError(EXIT.usage, error.message);
    throw error;
  }
  const database = openDatabase(config);
  try {
    if (!(await database.knex.schema.hasTable('api_keys'))) {
      throw new ExitError(
        EXIT.conflict,
        'the database has no gateway tables yet; run `agw migrate` (or start the gateway) first',
      );
    }
    return await database.knex.transaction(async (trx) => {
      const created = await createOperatorKey(trx, { label: flags.label ?? 'created with agw --database' });
      await trx('audit_events').insert({
        audit_id: globalThis.crypto.randomUUID(),
        request_id: 'cli',
        actor: 'cli:database',
        action: 'operator_key.create',
        outcome: 'succeeded',
        http_status: 0,
        details: JSON.stringify({ created_prefix: created.key.prefix, label: created.key.label }),
      });
      return created;
    });
  } finally {
    await database.close();
  }
}
