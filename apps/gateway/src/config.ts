import { isAbsolute, resolve } from 'node:path';

/** pino's level names; `silent` turns logging off. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

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
  /**
   * DATA_DIR_ALLOW_SHARED: start even when DATA_DIR (or its database, mail or key files) is readable or
   * writable by group or others. Default false: such a data folder is refused at start.
   */
  readonly dataDirAllowShared?: boolean | undefined;
}

/** Values that win over the environment (the CLI's --port, --host, --data-dir). */
export interface ConfigOverrides {
  readonly host?: string | undefined;
  readonly port?: string | number | undefined;
  readonly dataDir?: string | undefined;
}

/** A configuration value is invalid; the message is one line meant for the operator. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The environment variable (or flag) at fault. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(message);
    this.variable = variable;
  }
}

const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
const MAX_BODY_LIMIT_BYTES = 100 * 1024 * 1024;

/**
 * Reads the gateway configuration from the environment, applies overrides and validates every value.
 * Throws a {@link ConfigError} naming the variable, the problem and an example.
 *
 * @example
 * const config = loadConfig(process.env, { port: '0' });
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: ConfigOverrides = {},
): GatewayConfig {
  const host = parseHost(pick(overrides.host, env.HOST) ?? '127.0.0.1');
  const port = parsePort(pick(overrides.port, env.PORT) ?? '8080');
  const dataDirRaw = pick(overrides.dataDir, env.DATA_DIR) ?? './.data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(dataDirRaw);
  const publicBaseUrl = parseBaseUrl(
    blankToUndefined(env.PUBLIC_BASE_URL) ?? `http://${hostForUrl(host)}:${port}`,
  );
  return Object.freeze({
    host,
    port,
    publicBaseUrl,
    dataDir,
    databaseUrl: parseServiceUrl(
      'DATABASE_URL',
      env.DATABASE_URL,
      ['postgres:', 'postgresql:'],
      'postgres://agw:secret@127.0.0.1:5432/agw',
    ),
    databaseStatementTimeoutMs: parseStatementTimeout(blankToUndefined(env.DATABASE_STATEMENT_TIMEOUT_MS)),
    redisUrl: parseServiceUrl('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:'], 'redis://127.0.0.1:6379'),
    redisKeyPrefix: parseRedisKeyPrefix(env.REDIS_KEY_PREFIX ?? ''),
    smtpUrl: parseServiceUrl('SMTP_URL', env.SMTP_URL, ['smtp:', 'smtps:'], 'smtp://user:pass@127.0.0.1:587'),
    logLevel: parseLogLevel(blankToUndefined(env.LOG_LEVEL) ?? 'info'),
    bodyLimitBytes: parseBodyLimit(blankToUndefined(env.BODY_LIMIT_BYTES)),
    // The access settings stay undefined when unset (defaults live with the code that uses them).
    secretKey: parseSecretKey(blankToUndefined(env.SECRET_KEY)),
    ownerOtpTtlSeconds: parseInteger('OWNER_OTP_TTL_SECONDS', env.OWNER_OTP_TTL_SECONDS, 1, 86_400),
    agentOtpTtlSeconds: parseInteger('AGENT_OTP_TTL_SECONDS', env.AGENT_OTP_TTL_SECONDS, 1, 86_400),
    otpResendCooldownSeconds: parseInteger(
      'OTP_RESEND_COOLDOWN_SECONDS',
      env.OTP_RESEND_COOLDOWN_SECONDS,
      0,
      3600,
    ),
    mailFrom: parseMailFrom(blankToUndefined(env.MAIL_FROM)),
    rateLimitPerInstallationPerMinute: parseInteger(
      'RATE_LIMIT_PER_INSTALLATION_PER_MINUTE',
      env.RATE_LIMIT_PER_INSTALLATION_PER_MINUTE,
      1,
      999_999,
    ),
    rateLimitPerCapabilityPerMinute: parseInteger(
      'RATE_LIMIT_PER_CAPABILITY_PER_MINUTE',
      env.RATE_LIMIT_PER_CAPABILITY_PER_MINUTE,
      1,
      999_999,
    ),
    auditSealIntervalMs: parseInteger('AUDIT_SEAL_INTERVAL_MS', env.AUDIT_SEAL_INTERVAL_MS, 10, 60_000),
    egressAllowedHosts: parseHostList(blankToUndefined(env.EGRESS_ALLOWED_HOSTS)),
    egressAllowHttp: parseBoolean('EGRESS_ALLOW_HTTP', blankToUndefined(env.EGRESS_ALLOW_HTTP)),
    // At least the idempotency retention (24 h): a replayed `accepted` answer must not point at a
    // swept job.
    jobRetentionHours: parseInteger('JOB_RETENTION_HOURS', env.JOB_RETENTION_HOURS, 24, 87_600),
    ...parseHttpTimeouts(env),
    dataDirAllowShared: parseBoolean('DATA_DIR_ALLOW_SHARED', blankToUndefined(env.DATA_DIR_ALLOW_SHARED)),
  });
}

// Node refuses a header limit above the request limit; say so here, naming the variables.
function parseHttpTimeouts(env: Readonly<Record<string, string | undefined>>) {
  const headers = parseInteger('HTTP_HEADERS_TIMEOUT_MS', env.HTTP_HEADERS_TIMEOUT_MS, 100, 600_000);
  const request = parseInteger('HTTP_REQUEST_TIMEOUT_MS', env.HTTP_REQUEST_TIMEOUT_MS, 100, 600_000);
  const keepAlive = parseInteger('HTTP_KEEP_ALIVE_TIMEOUT_MS', env.HTTP_KEEP_ALIVE_TIMEOUT_MS, 100, 600_000);
  if ((headers ?? 10_000) > (request ?? 30_000)) {
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      `HTTP_HEADERS_TIMEOUT_MS (${headers ?? 10_000}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${request ?? 30_000}) (example: HTTP_HEADERS_TIMEOUT_MS=10000 HTTP_REQUEST_TIMEOUT_MS=30000)`,
    );
  }
  return {
    httpHeadersTimeoutMs: headers,
    httpRequestTimeoutMs: request,
    httpKeepAliveTimeoutMs: keepAlive,
  };
}

function pick(override: string | number | undefined, fromEnv: string | undefined): string | undefined {
  if (override !== undefined) return String(override);
  return blankToUndefined(fromEnv);
}

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parseHost(value: string): string {
  // A hostname, an IPv4 address or an IPv6 address; no scheme, port or path.
  if (!/^[A-Za-z0-9.:-]+$/.test(value) || value.length > 253) {
    throw new ConfigError(
      'HOST',
      `HOST must be a hostname or IP address, got '${value}' (example: HOST=0.0.0.0)`,
    );
  }
  return value;
}

function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port > 65535) {
    throw new ConfigError('PORT', `PORT must be an integer 0-65535, got '${value}' (example: PORT=8080)`);
  }
  return port;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function parseBaseUrl(value: string): string {
  const url = tryUrl(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new ConfigError(
      'PUBLIC_BASE_URL',
      `PUBLIC_BASE_URL must be an absolute http(s) URL without query or fragment, got '${value}' (example: PUBLIC_BASE_URL=https://gateway.example.com)`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

function parseServiceUrl(
  variable: string,
  raw: string | undefined,
  protocols: readonly string[],
  example: string,
): string | undefined {
  const value = blankToUndefined(raw);
  if (value === undefined) return undefined;
  const url = tryUrl(value);
  if (!url || !protocols.includes(url.protocol) || !url.hostname) {
    // The value may hold a password: show only its scheme, never the whole string.
    const scheme = url?.protocol ?? 'an unparsable value';
    throw new ConfigError(
      variable,
      `${variable} must be a ${protocols.map((protocol) => `${protocol}//`).join(' or ')} URL, got ${scheme} (example: ${variable}=${example})`,
    );
  }
  return value;
}

function parseRedisKeyPrefix(value: string): string {
  if (!/^[A-Za-z0-9_.:-]{0,64}$/.test(value)) {
    throw new ConfigError(
      'REDIS_KEY_PREFIX',
      `REDIS_KEY_PREFIX must be at most 64 letters, digits or _ . : -, got '${value}' (example: REDIS_KEY_PREFIX=staging:)`,
    );
  }
  return value;
}

function parseLogLevel(value: string): LogLevel {
  const level = logLevels.find((candidate) => candidate === value.toLowerCase());
  if (!level) {
    throw new ConfigError(
      'LOG_LEVEL',
      `LOG_LEVEL must be one of ${logLevels.join(', ')}, got '${value}' (example: LOG_LEVEL=debug)`,
    );
  }
  return level;
}

function parseBodyLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_BODY_LIMIT_BYTES;
  const bytes = /^\d{1,12}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > MAX_BODY_LIMIT_BYTES) {
    throw new ConfigError(
      'BODY_LIMIT_BYTES',
      `BODY_LIMIT_BYTES must be an integer 1-${MAX_BODY_LIMIT_BYTES}, got '${value}' (example: BODY_LIMIT_BYTES=1048576)`,
    );
  }
  return bytes;
}

function parseSecretKey(value: string | undefined): Buffer | undefined {
  if (value === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/]{43}=?$/.test(value)
      ? Buffer.from(value, 'base64')
      : undefined;
  if (bytes?.length !== 32) {
    // Never echo the value: it is the server secret.
    throw new ConfigError(
      'SECRET_KEY',
      'SECRET_KEY must be 32 bytes as 64 hex or 44 base64 characters (example: SECRET_KEY=$(openssl rand -hex 32))',
    );
  }
  return bytes;
}

function parseInteger(
  variable: string,
  raw: string | undefined,
  min: number,
  max: number,
): number | undefined {
  const value = blankToUndefined(raw);
  if (value === undefined) return undefined;
  const parsed = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(
      variable,
      `${variable} must be an integer ${min}-${max}, got '${value}' (example: ${variable}=${max})`,
    );
  }
  return parsed;
}

// 0 keeps PostgreSQL's own setting; below 100 ms ordinary statements would be cancelled under load.
function parseStatementTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(ms) || (ms !== 0 && (ms < 100 || ms > 600_000))) {
    throw new ConfigError(
      'DATABASE_STATEMENT_TIMEOUT_MS',
      `DATABASE_STATEMENT_TIMEOUT_MS must be 0 or an integer 100-600000, got '${value}' (example: DATABASE_STATEMENT_TIMEOUT_MS=30000)`,
    );
  }
  return ms;
}

function parseMailFrom(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > 320 || !/^[^\r\n]*@[^\r\n]+$/.test(value)) {
    throw new ConfigError(
      'MAIL_FROM',
      `MAIL_FROM must be an address, got '${value.slice(0, 80)}' (example: MAIL_FROM="Agent Gateway <agw@example.com>")`,
    );
  }
  return value;
}

function parseHostList(value: string | undefined): readonly string[] {
  if (value === undefined) return [];
  const hosts = value.split(',').map((entry) => entry.trim().toLowerCase());
  const bad = hosts.find(
    (host) => !/^(\*\.)?[a-z0-9]([a-z0-9.:-]*[a-z0-9])?$/.test(host) || host.length > 253,
  );
  if (bad !== undefined) {
    throw new ConfigError(
      'EGRESS_ALLOWED_HOSTS',
      `EGRESS_ALLOWED_HOSTS must be comma-separated host names, got '${bad.slice(0, 80)}' (example: EGRESS_ALLOWED_HOSTS=api.example.com,*.example.org)`,
    );
  }
  return Object.freeze(hosts);
}

function parseBoolean(variable: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ConfigError(
    variable,
    `${variable} must be true or false, got '${value.slice(0, 20)}' (example: ${variable}=true)`,
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
