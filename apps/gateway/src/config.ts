import { isAbsolute, resolve } from 'node:path';
import { type CapabilityDomain, capabilityDomains } from '@agw/capabilities';
import { readSettings, SettingError, type SettingsSchema } from '@agw/contracts';
import { gatewaySettings, logLevels } from './config-schema.js';

export { logLevels };

/** One of pino's level names. */
export type LogLevel = (typeof logLevels)[number];

/** The validated, frozen gateway configuration. */
export interface GatewayConfig {
  /** Interface the HTTP server binds to. */
  readonly host: string;
  /** TCP port; 0 picks a free ephemeral port. */
  readonly port: number;
  /** Absolute base URL agents use to reach this gateway (no trailing slash). */
  readonly publicBaseUrl: string;
  /** Absolute directory for embedded data (PGlite files, dev mailbox). */
  readonly dataDir: string;
  /** PostgreSQL connection string; undefined selects embedded PGlite under dataDir. */
  readonly databaseUrl: string | undefined;
  /**
   * DATABASE_STATEMENT_TIMEOUT_MS: PostgreSQL cancels a statement (lock waits included) running longer;
   * undefined means the default (30000), 0 leaves the server's own setting. Not applied on PGlite.
   */
  readonly databaseStatementTimeoutMs?: number | undefined;
  /**
   * DATABASE_PREPARED_STATEMENTS: false sends every statement unnamed, for a pooler that does not keep
   * named prepared statements (pgbouncer < 1.21 in transaction mode); undefined means true.
   */
  readonly databasePreparedStatements?: boolean | undefined;
  /**
   * DATABASE_POOL_SIZE: the most PostgreSQL connections the process opens; undefined means twice the
   * CPU cores, from 4 to 10 (`defaultPoolSize`, src/db/knex.ts).
   */
  readonly databasePoolSize?: number | undefined;
  /** Redis connection string; undefined means Redis is not configured. */
  readonly redisUrl: string | undefined;
  /**
   * REDIS_KEY_PREFIX: put before every Redis key and channel name of this gateway, so gateways with
   * different databases can share one Redis without sharing rate-limit buckets or cache invalidations.
   * Empty (the default) keeps the plain names; instances of one gateway must use the same prefix.
   */
  readonly redisKeyPrefix: string;
  /** SMTP connection string; undefined selects the dev mailbox under dataDir/mail. */
  readonly smtpUrl: string | undefined;
  /** pino log level. */
  readonly logLevel: LogLevel;
  /** Largest accepted request body in bytes. */
  readonly bodyLimitBytes: number;
  /**
   * SECRET_KEY: 32 bytes (64 hex or 44 base64 characters) keying HMACs and encryption at rest.
   * Undefined: generated once and kept in DATA_DIR/secret.key (see src/secrets/).
   */
  readonly secretKey?: Buffer | undefined;
  /** OWNER_OTP_TTL_SECONDS; undefined means the default (86400). */
  readonly ownerOtpTtlSeconds?: number | undefined;
  /** AGENT_OTP_TTL_SECONDS; undefined means the default (3600). */
  readonly agentOtpTtlSeconds?: number | undefined;
  /** QUOTE_TTL_SECONDS: lifetime of a dry_run's price quote; undefined means the default (900). */
  readonly quoteTtlSeconds?: number | undefined;
  /** OTP_RESEND_COOLDOWN_SECONDS; undefined means the default (60). */
  readonly otpResendCooldownSeconds?: number | undefined;
  /** MAIL_FROM: the From address of gateway mail; undefined means `Agent Gateway <no-reply@localhost>`. */
  readonly mailFrom?: string | undefined;
  /** RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: invokes per installation per minute; undefined means 1200. */
  readonly rateLimitPerInstallationPerMinute?: number | undefined;
  /** RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: invokes per installation × capability per minute; default 600. */
  readonly rateLimitPerCapabilityPerMinute?: number | undefined;
  /** AUDIT_SEAL_INTERVAL_MS: pause between audit-chain sealer runs; undefined means 1000. */
  readonly auditSealIntervalMs?: number | undefined;
  /** METRICS_PORT: where `/metrics` is served (0: any free port); undefined means no metrics at all. */
  readonly metricsPort?: number | undefined;
  /** METRICS_HOST: the interface the metrics port binds; undefined means 127.0.0.1. */
  readonly metricsHost?: string | undefined;
  /**
   * EGRESS_ALLOWED_HOSTS: the hosts capability handlers may reach (`api.example.com`, `*.example.com`).
   * Empty (the default) means no handler reaches the network.
   */
  readonly egressAllowedHosts?: readonly string[] | undefined;
  /** EGRESS_ALLOW_HTTP: also allow plain `http:` to those hosts (default: `https:` only). */
  readonly egressAllowHttp?: boolean | undefined;
  /** JOB_RETENTION_HOURS: finished jobs older than this are deleted; undefined means 168 (7 days). */
  readonly jobRetentionHours?: number | undefined;
  /** HTTP_HEADERS_TIMEOUT_MS: request line and headers within this; undefined means 10000. */
  readonly httpHeadersTimeoutMs?: number | undefined;
  /** HTTP_REQUEST_TIMEOUT_MS: the whole request, body included, within this; undefined means 30000. */
  readonly httpRequestTimeoutMs?: number | undefined;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: idle keep-alive connections close after this; undefined means 5000. */
  readonly httpKeepAliveTimeoutMs?: number | undefined;
  /** SHUTDOWN_GRACE_MS: how long in-flight requests get to finish on SIGTERM; undefined means 10000. */
  readonly shutdownGraceMs?: number | undefined;
  /** OPERATOR_EMAIL: who is mailed when something waits for an operator; empty: nobody. */
  readonly operatorEmails?: readonly string[] | undefined;
  /** OPERATOR_DIGEST_SECONDS: after an operator mail, later arrivals wait this long for one digest. */
  readonly operatorDigestSeconds?: number | undefined;
  /**
   * DATA_DIR_ALLOW_SHARED: start even when DATA_DIR (or its database, mail or key files) is readable or
   * writable by group or others. Default false: such a data folder is refused at start.
   */
  readonly dataDirAllowShared?: boolean | undefined;
  /**
   * Each domain's settings (its `settings` schema, read and validated with the gateway's), by domain
   * name; the gateway hands them to the domain as `host.settings`. A domain missing here gets its
   * defaults.
   */
  readonly domainSettings?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** Values that win over the environment (the CLI's --port, --host, --data-dir). */
export interface ConfigOverrides {
  readonly host?: string | undefined;
  readonly port?: string | number | undefined;
  readonly dataDir?: string | undefined;
}

/** A configuration value is invalid; the message is one line meant for the operator. */
export class ConfigError extends SettingError {
  override readonly name: string = 'ConfigError';
}

/** Whose settings a schema holds: `gateway` or a domain's name. */
export interface SettingsOwner {
  readonly owner: string;
  readonly schema: SettingsSchema;
}

/**
 * The gateway's settings schema, then every domain's that has one. Throws when two declare the same
 * variable: each variable has one meaning and one row in docs/configuration.md.
 */
export function configurationSchemas(
  domains: readonly CapabilityDomain[] = capabilityDomains,
): readonly SettingsOwner[] {
  const owners: SettingsOwner[] = [{ owner: 'gateway', schema: gatewaySettings }];
  for (const domain of domains) {
    if (domain.settings) owners.push({ owner: domain.name, schema: domain.settings });
  }
  const seen = new Map<string, string>();
  for (const { owner, schema } of owners) {
    for (const name of Object.keys(schema.properties)) {
      const other = seen.get(name);
      if (other !== undefined) throw new Error(`${name} is declared by both ${other} and ${owner}`);
      seen.set(name, owner);
    }
  }
  return owners;
}

/**
 * Reads the gateway configuration and every domain's settings from the environment, applies
 * overrides and validates every value against the schemas (src/config-schema.ts and each domain's
 * `settings`). Throws a {@link ConfigError} of one line naming the variable, its value's problem and
 * the allowed values.
 *
 * @example
 * const config = loadConfig(process.env, { port: '0' });
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: ConfigOverrides = {},
  domains: readonly CapabilityDomain[] = capabilityDomains,
): GatewayConfig {
  const source = { ...env };
  if (overrides.host !== undefined) source.HOST = overrides.host;
  if (overrides.port !== undefined) source.PORT = String(overrides.port);
  if (overrides.dataDir !== undefined) source.DATA_DIR = overrides.dataDir;
  const owners = configurationSchemas(domains).slice(1);
  const settings = read(gatewaySettings, source);
  if (settings.HTTP_HEADERS_TIMEOUT_MS > settings.HTTP_REQUEST_TIMEOUT_MS) {
    // Node refuses a header limit above the request limit; say so here, naming both variables.
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      `HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS (got ${settings.HTTP_HEADERS_TIMEOUT_MS} > ${settings.HTTP_REQUEST_TIMEOUT_MS})`,
    );
  }
  const domainSettings: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const { owner, schema } of owners) domainSettings[owner] = Object.freeze(read(schema, source));
  const dataDir = settings.DATA_DIR;
  return Object.freeze({
    host: settings.HOST,
    port: settings.PORT,
    publicBaseUrl: baseUrl(
      settings.PUBLIC_BASE_URL ?? `http://${hostForUrl(settings.HOST)}:${settings.PORT}`,
    ),
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(dataDir),
    databaseUrl: settings.DATABASE_URL,
    databaseStatementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
    databasePreparedStatements: settings.DATABASE_PREPARED_STATEMENTS,
    databasePoolSize: settings.DATABASE_POOL_SIZE,
    redisUrl: settings.REDIS_URL,
    redisKeyPrefix: settings.REDIS_KEY_PREFIX,
    smtpUrl: settings.SMTP_URL,
    logLevel: settings.LOG_LEVEL,
    bodyLimitBytes: settings.BODY_LIMIT_BYTES,
    secretKey: secretKeyBytes(settings.SECRET_KEY),
    ownerOtpTtlSeconds: settings.OWNER_OTP_TTL_SECONDS,
    agentOtpTtlSeconds: settings.AGENT_OTP_TTL_SECONDS,
    otpResendCooldownSeconds: settings.OTP_RESEND_COOLDOWN_SECONDS,
    quoteTtlSeconds: settings.QUOTE_TTL_SECONDS,
    mailFrom: settings.MAIL_FROM,
    rateLimitPerInstallationPerMinute: settings.RATE_LIMIT_PER_INSTALLATION_PER_MINUTE,
    rateLimitPerCapabilityPerMinute: settings.RATE_LIMIT_PER_CAPABILITY_PER_MINUTE,
    auditSealIntervalMs: settings.AUDIT_SEAL_INTERVAL_MS,
    egressAllowedHosts: hostList(settings.EGRESS_ALLOWED_HOSTS),
    egressAllowHttp: settings.EGRESS_ALLOW_HTTP,
    jobRetentionHours: settings.JOB_RETENTION_HOURS,
    httpHeadersTimeoutMs: settings.HTTP_HEADERS_TIMEOUT_MS,
    httpRequestTimeoutMs: settings.HTTP_REQUEST_TIMEOUT_MS,
    httpKeepAliveTimeoutMs: settings.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    metricsPort: settings.METRICS_PORT,
    metricsHost: settings.METRICS_HOST,
    shutdownGraceMs: settings.SHUTDOWN_GRACE_MS,
    operatorEmails: addressList(settings.OPERATOR_EMAIL),
    operatorDigestSeconds: settings.OPERATOR_DIGEST_SECONDS,
    dataDirAllowShared: settings.DATA_DIR_ALLOW_SHARED,
    domainSettings: Object.freeze(domainSettings),
  });
}

/**
 * The settings of each of `domains` by name: those `config` read and validated (loadConfig), else the
 * domain's defaults (a domain a test or an embedder adds).
 */
export function domainSettingsOf(
  domains: readonly CapabilityDomain[],
  config: Pick<GatewayConfig, 'domainSettings'>,
): Readonly<Record<string, Readonly<Record<string, unknown>>>> {
  const settings: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const domain of domains) {
    settings[domain.name] =
      config.domainSettings?.[domain.name] ?? (domain.settings ? read(domain.settings, {}) : {});
  }
  return settings;
}

function read<S extends SettingsSchema>(schema: S, env: Readonly<Record<string, string | undefined>>) {
  try {
    return readSettings(schema, env);
  } catch (error) {
    if (error instanceof SettingError) throw new ConfigError(error.variable, error.message);
    throw error;
  }
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

// The schema's pattern admits only http(s) without query or fragment; the URL parser has the last word.
function baseUrl(value: string): string {
  const url = tryUrl(value);
  if (!url) {
    throw new ConfigError(
      'PUBLIC_BASE_URL',
      `PUBLIC_BASE_URL must be an absolute http(s) URL without query or fragment (got ${JSON.stringify(value)})`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

function secretKeyBytes(value: string | undefined): Buffer | undefined {
  if (value === undefined) return undefined;
  return /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
}

function hostList(value: string): readonly string[] {
  const hosts = value === '' ? [] : value.split(',').map((entry) => entry.trim().toLowerCase());
  return Object.freeze(hosts);
}

function addressList(value: string): readonly string[] {
  return Object.freeze(
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  );
}

function tryUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The URL with its password replaced, safe for logs and messages. */
export function redactUrl(value: string): string {
  const url = tryUrl(value);
  if (!url) return '[unparsable url]';
  if (url.password) url.password = '***';
  return url.href;
}
