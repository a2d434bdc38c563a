import type { ErrorCode, SettingsSchema } from '@agw/contracts';
import type { CapabilityHandler, IdGenerator } from './define.js';
import type { MailPort } from './mail.js';
import type { Sql, SqlDatabase } from './sql.js';

/**
 * One migration of a domain's tables, as plain SQL text so this package needs no driver or query
 * builder: the gateway runs `up` (or `down`) one statement at a time, in one transaction, in the same
 * ordered migration source as its own migrations (ordered by `name`, a `YYYYMMDDhhmmss_` prefix).
 * Append only: a published migration is never renamed or edited.
 */
export interface DomainMigration {
  readonly name: string;
  readonly up: readonly string[];
  readonly down: readonly string[];
}

/**
 * The migration that puts each of `tables` (each with an `organization_id` column) under row-level
 * security for the runtime role: the role gets the DML and sees, changes and inserts only rows of the
 * organization its transaction is set to. Every domain table carries this policy.
 */
export function tenantRowLevelSecurity(name: string, tables: readonly string[]): DomainMigration {
  return {
    name,
    up: tables.flatMap((table) => [
      `grant select, insert, update, delete on ${table} to agw_runtime`,
      `alter table ${table} enable row level security`,
      `create policy ${table}_tenant on ${table} to agw_runtime
  using (organization_id = agw_current_organization())
  with check (organization_id = agw_current_organization())`,
    ]),
    down: tables.flatMap((table) => [
      `drop policy ${table}_tenant on ${table}`,
      `alter table ${table} disable row level security`,
      `revoke select, insert, update, delete on ${table} from agw_runtime`,
    ]),
  };
}

/**
 * The migration that has each of `keys` — a domain table's foreign key to the tenant (`organizations`,
 * `installations`), as `[table, constraint]` — checked at COMMIT instead of at each insert. The check
 * locks the organization's row (FOR KEY SHARE); made at the insert, that lock lasted the rest of the
 * invoke's transaction, so the concurrent invokes of one organization held it together and PostgreSQL
 * recorded each new holder in a multixact. At COMMIT it lasts a moment, and the key holds as before: a
 * row whose organization is missing still fails its transaction. Every foreign key to the tenant is
 * checked at commit (apps/gateway/test/tenancy-coverage.test.ts reads it from the catalog); a new table
 * declares its keys `deferrable initially deferred`.
 */
export function tenantKeysCheckedAtCommit(
  name: string,
  keys: readonly (readonly [table: string, constraint: string])[],
): DomainMigration {
  return {
    name,
    up: keys.map(
      ([table, key]) => `alter table ${table} alter constraint ${key} deferrable initially deferred`,
    ),
    down: keys.map(([table, key]) => `alter table ${table} alter constraint ${key} not deferrable`),
  };
}

/**
 * A domain: its handlers and the migrations of its tables. A domain table carries `organization_id`
 * under row-level security for the runtime role `agw_runtime`, with the policy
 * `organization_id = agw_current_organization()` (`tenantRowLevelSecurity` writes that migration), and grants that role
 * the DML its handlers need: handlers run as that role with the tenant set per transaction. Its foreign
 * keys to `organizations` and `installations` are checked at commit (`tenantKeysCheckedAtCommit`).
 *
 * A domain that serves people or programs without an installation key (a booking page, an event
 * ingestion endpoint) or keeps work on a timer (retention, a write buffer) adds `start`: the gateway
 * calls it once per process and mounts what it returns.
 */
export interface CapabilityDomain {
  readonly name: string;
  readonly handlers: readonly CapabilityHandler<never>[];
  readonly migrations: readonly DomainMigration[];
  /**
   * The PostgreSQL extensions the domain's tables need (e.g. `btree_gist` for an exclusion constraint
   * on a uuid): the gateway creates them before any migration runs (`create extension if not exists`;
   * on PostgreSQL its user must be allowed to), and the embedded database (PGlite) loads each one's
   * module, `@electric-sql/pglite/contrib/<name>`, when it opens.
   */
  readonly extensions?: readonly string[];
  readonly start?: (host: DomainHost) => DomainService;
  /**
   * The environment variables the domain reads, as a settings schema (`settingsSchema` and `Setting`
   * of @agw/contracts: type, default, bounds, description). The gateway validates them with its own at
   * start (a bad value stops the start) and hands the values to `start` as `host.settings`; a domain
   * never reads the environment itself.
   */
  readonly settings?: SettingsSchema;
}

/** What the gateway gives a domain's public routes and tasks. */
export interface DomainHost {
  /**
   * SQL as the gateway's own role, outside row-level security. Use it only to resolve a public
   * identifier (a link slug, an ingestion id) to its organization, and for maintenance across
   * organizations (retention); everything else goes through {@link DomainHost.asTenant}.
   */
  readonly sql: SqlDatabase;
  /**
   * Runs `fn` in one transaction as the runtime role with `organizationId` set (the same isolation a
   * handler gets); mail staged through `mail` is sent after the transaction commits.
   */
  asTenant<T>(organizationId: string, fn: (sql: Sql, mail: MailPort) => Promise<T>): Promise<T>;
  /**
   * Counts one hit of `key` (e.g. `calendar.book:<client address>`) against `limit` per `windowSeconds`,
   * shared by every gateway instance when Redis is configured.
   */
  rateLimit(key: string, limit: number, windowSeconds: number): Promise<RateLimitVerdict>;
  /** PUBLIC_BASE_URL without a trailing slash, e.g. `https://gateway.example.com`. */
  readonly publicBaseUrl: string;
  readonly ids: IdGenerator;
  readonly clock: { now(): Date };
  readonly log: DomainLog;
  /** The values of the domain's `settings`, validated, defaults filled in (empty without a schema). */
  readonly settings: Readonly<Record<string, unknown>>;
  /**
   * The answer that refuses a request: the gateway renders it as every other error, the contracts'
   * error envelope with the code's status, `retryable` and default hint, `retry_after_seconds` and
   * `Retry-After` together. A domain never builds `{ error }` itself.
   *
   * @example
   * if (!verdict.allowed) return host.error('rate_limited', { retryAfterSeconds: verdict.retryAfterSeconds });
   */
  error(code: ErrorCode, options?: PublicErrorOptions): PublicResponse;
}

/** What a refusal says beyond its code (each member of the error envelope of the same name). */
export interface PublicErrorOptions {
  /** Shown to the client: never a secret or an internal detail. Defaults to the code's generic text. */
  readonly message?: string;
  /** Defaults to the code's hint in the contracts' table. */
  readonly hint?: string;
  readonly retryAfterSeconds?: number;
  /** A JSON Pointer into the request: `/body/<field>`, `/query/<parameter>`. */
  readonly schemaPointer?: string;
  /** The violations (each with schema_pointer, keyword, message); the first 20 are shown. */
  readonly details?: ReadonlyArray<Record<string, unknown>>;
  /** Response headers besides the envelope's. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A refusal as {@link DomainHost.error} makes it, rendered by the gateway when it answers. */
export interface PublicError extends Omit<PublicErrorOptions, 'headers'> {
  readonly code: ErrorCode;
}

/** A rate-limit answer. */
export interface RateLimitVerdict {
  readonly allowed: boolean;
  /** Whole seconds until the next hit is allowed (0 when allowed). */
  readonly retryAfterSeconds: number;
}

/** Structured log lines (never put secrets, client addresses or personal data in `fields`). */
export interface DomainLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** What a domain runs in a gateway process. */
export interface DomainService {
  readonly routes?: readonly PublicRoute[];
  readonly tasks?: readonly DomainTask[];
  /** Graceful shutdown: flush buffers, finish in-flight work (bounded by the gateway). */
  stop?(): Promise<void>;
  /**
   * Numbers the gateway exports as metrics (`agw_<domain>_<name>`), read when Prometheus scrapes: a
   * name ending in `_total` counts since the start (a counter), any other is a level now (a gauge). The
   * same names on every call, in snake_case; cheap (no I/O).
   */
  stats?(): Readonly<Record<string, number>>;
}

/** Work the gateway runs every `intervalMs` after the previous run ended (runs never overlap). */
export interface DomainTask {
  readonly name: string;
  readonly intervalMs: number;
  run(): Promise<void>;
}

/**
 * A route served without an installation key. The gateway serves it with its request id, security
 * headers, request log and error envelope (a thrown error answers 500 `internal_error` without details,
 * with an audit row), answers HEAD for a GET route and 405 for another method, reads at most
 * `bodyLimitBytes` of the body (64 KiB by default; more answers 413), and lists it in `/openapi.json`
 * when `openapi` is given.
 */
export interface PublicRoute {
  readonly method: 'GET' | 'POST' | 'OPTIONS';
  /** A @koa/router path, e.g. `/book/:slug` or `/a/events`. */
  readonly path: string;
  readonly bodyLimitBytes?: number;
  /** The OpenAPI 3.1 operation object for this method and path (path parameters as `{slug}`). */
  readonly openapi?: Record<string, unknown>;
  handle(request: PublicRequest): Promise<PublicResponse>;
}

/** The request as a public route sees it. */
export interface PublicRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The raw body (empty for GET). */
  readonly body: Uint8Array;
  /** The peer address (the gateway does not trust forwarding headers unless configured to). */
  readonly clientAddress: string;
  readonly requestId: string;
}

/**
 * The answer. A string or Uint8Array body is sent as is (set `content-type`); any other value is sent
 * as JSON. `headers` override the gateway's defaults (e.g. a page's own Content-Security-Policy). A
 * refusal comes from {@link DomainHost.error}: it has `error` instead of a body.
 */
export interface PublicResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /**
   * Set by {@link DomainHost.error}: the gateway answers the error envelope (its `audit_id` is the
   * request id, which the request's log line carries: a refusal a route answers writes no audit row,
   * so a flood of refused requests is no flood of rows).
   */
  readonly error?: PublicError;
}
