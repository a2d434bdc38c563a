import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { type AdminClient, ConnectionError, createAdminClient, GatewayError } from '@agw/client/admin';
import type { CommandContext } from './context.js';
import { EXIT, ExitError } from './io.js';
import { runningGateway } from './serve-state.js';

/** Flags every operator command accepts. */
export interface OperatorFlags {
  /** Gateway address; wins over AGW_URL and the running `agw serve`. */
  readonly url?: string | undefined;
  /** DATA_DIR holding operator.key (and mail/); wins over DATA_DIR and the running `agw serve`. */
  readonly dataDir?: string | undefined;
  /** Print JSON for scripts instead of tables. */
  readonly json?: boolean | undefined;
}

/** The process environment as commands read it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Default gateway address (the gateway's own default HOST and PORT). */
export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';

/**
 * The data directory: --data-dir, then DATA_DIR, then the running `agw serve`'s (its state file), then
 * ./.data, made absolute as the gateway does.
 */
export function resolveDataDir(flags: Pick<OperatorFlags, 'dataDir'>, context: CommandContext): string {
  const raw =
    flags.dataDir ?? blankToUndefined(context.env.DATA_DIR) ?? runningGateway(context)?.data_dir ?? './.data';
  return isAbsolute(raw) ? raw : resolve(raw);
}

/**
 * The gateway URL: --url, then AGW_URL, then the running `agw serve`'s (its state file), then
 * http://127.0.0.1:8080. Exit 2 when not http(s).
 */
export function resolveGatewayUrl(flags: Pick<OperatorFlags, 'url'>, context: CommandContext): string {
  const url =
    flags.url ?? blankToUndefined(context.env.AGW_URL) ?? runningGateway(context)?.url ?? DEFAULT_GATEWAY_URL;
  if (!/^https?:\/\/[^/\s]+/i.test(url)) {
    throw new ExitError(
      EXIT.usage,
      `the gateway URL must be http(s)://host[:port], got '${url}' (set AGW_URL or --url)`,
    );
  }
  return url.replace(/\/+$/, '');
}

/**
 * The operator key: AGW_OPERATOR_KEY, else the first line of DATA_DIR/operator.key (written by the
 * gateway at its first start). Exit 2 when neither is there; the key itself is never printed.
 */
export async function resolveOperatorKey(
  flags: Pick<OperatorFlags, 'dataDir'>,
  context: CommandContext,
): Promise<string> {
  const fromEnv = blankToUndefined(context.env.AGW_OPERATOR_KEY);
  if (fromEnv) return fromEnv;
  const path = join(resolveDataDir(flags, context), 'operator.key');
  const content = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new ExitError(EXIT.usage, `cannot read ${path}: ${error.code ?? error.message}`);
  });
  const key = content?.split('\n')[0]?.trim();
  if (!key) {
    throw new ExitError(
      EXIT.usage,
      `no operator key: set AGW_OPERATOR_KEY, or point --data-dir/DATA_DIR at the gateway's data directory (looked for ${path})`,
    );
  }
  return key;
}

/** An admin client for the configured gateway and key. */
export async function operatorClient(flags: OperatorFlags, context: CommandContext): Promise<AdminClient> {
  const baseUrl = resolveGatewayUrl(flags, context);
  const operatorKey = await resolveOperatorKey(flags, context);
  return createAdminClient({ baseUrl, operatorKey, userAgent: 'agw-cli' });
}

/** The exit code for a failed admin call (see {@link EXIT}). */
export function exitCodeFor(error: GatewayError | ConnectionError): number {
  if (ConnectionError.isConnectionError(error)) return EXIT.gateway;
  if (error.status === 401 || error.status === 403) return EXIT.auth;
  if (error.status === 409 || error.status === 412) return EXIT.conflict;
  return EXIT.gateway;
}

/**
 * Runs an admin call and turns gateway failures into an ExitError with a one-line message, the hint
 * and the audit id (never the key: the SDK already scrubbed it). Anything else propagates.
 */
export async function withGateway<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (GatewayError.isGatewayError(error)) {
      const lines = [`${error.message} (${error.code}, HTTP ${error.status})`];
      for (const detail of error.details ?? []) lines.push(`  - ${describeDetail(detail)}`);
      if (error.hint) lines.push(`  hint: ${error.hint}`);
      if (error.auditId) lines.push(`  audit_id: ${error.auditId}`);
      throw new ExitError(exitCodeFor(error), lines.join('\n'));
    }
    if (ConnectionError.isConnectionError(error)) {
      throw new ExitError(EXIT.gateway, `${error.message} (is the gateway running? set AGW_URL or --url)`);
    }
    throw error;
  }
}

/**
 * One `details[]` entry on one line: a violation as `pointer: message`, anything else as
 * `field: value` pairs (nested values as JSON).
 */
function describeDetail(detail: Record<string, unknown>): string {
  const { schema_pointer: pointer, message } = detail;
  if (typeof pointer === 'string' && typeof message === 'string') return `${pointer || '/'}: ${message}`;
  return Object.entries(detail)
    .map(([field, value]) => `${field}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
