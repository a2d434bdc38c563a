// Pins the configuration rules: defaults, overrides, and the one-line message for each bad value.
// Does not cover how the CLI prints these (apps/cli/test does).
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '@agw/gateway';
import { describe, expect, it } from 'vitest';

function failure(env: Record<string, string>, overrides = {}): ConfigError {
  try {
    loadConfig(env, overrides);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected loadConfig to fail');
}

describe('loadConfig', () => {
  it('applies the documented defaults and freezes the result', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      host: '127.0.0.1',
      port: 8080,
      publicBaseUrl: 'http://127.0.0.1:8080',
      dataDir: resolve('.data'),
      databaseUrl: undefined,
      databaseStatementTimeoutMs: 30000,
      databasePreparedStatements: true,
      redisUrl: undefined,
      redisKeyPrefix: '',
      smtpUrl: undefined,
      logLevel: 'info',
      bodyLimitBytes: 1048576,
      ownerOtpTtlSeconds: 86400,
      agentOtpTtlSeconds: 3600,
      otpResendCooldownSeconds: 60,
      mailFrom: 'Agent Gateway <no-reply@localhost>',
      rateLimitPerInstallationPerMinute: 1200,
      rateLimitPerCapabilityPerMinute: 600,
      auditSealIntervalMs: 1000,
      egressAllowedHosts: [],
      egressAllowHttp: false,
      jobRetentionHours: 168,
      httpHeadersTimeoutMs: 10000,
      httpRequestTimeoutMs: 30000,
      httpKeepAliveTimeoutMs: 5000,
      metricsHost: '127.0.0.1',
      metricsPort: undefined,
      operatorEmails: [],
      operatorDigestSeconds: 300,
      quoteTtlSeconds: 900,
      secretKey: undefined,
      shutdownGraceMs: 10000,
      dataDirAllowShared: false,
      domainSettings: {
        analytics: { ANALYTICS_EVENTS_PER_MINUTE: 600 },
        billing: { BILLING_RENDER_TIMEOUT_MS: 60000 },
        calendar: {
          CALENDAR_READS_PER_MINUTE: 120,
          CALENDAR_BOOKINGS_PER_MINUTE: 10,
          CALENDAR_LINK_BOOKINGS_PER_HOUR: 20,
          CALENDAR_ORG_BOOKINGS_PER_HOUR: 60,
          CALENDAR_ORG_MAILS_PER_HOUR: 120,
        },
      },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable and lets flags override HOST, PORT and DATA_DIR', () => {
    const config = loadConfig(
      {
        HOST: '0.0.0.0',
        PORT: '9000',
        PUBLIC_BASE_URL: 'https://gateway.example.com/',
        DATA_DIR: '/var/lib/agw',
        DATABASE_URL: 'postgres://agw:pw@db:5432/agw',
        REDIS_URL: 'redis://cache:6379',
        REDIS_KEY_PREFIX: 'staging:',
        SMTP_URL: 'smtp://mail:25',
        LOG_LEVEL: 'DEBUG',
        BODY_LIMIT_BYTES: '2048',
      },
      { port: '0', host: '::1', dataDir: '/tmp/agw' },
    );
    expect(config).toMatchObject({
      host: '::1',
      port: 0,
      publicBaseUrl: 'https://gateway.example.com',
      dataDir: '/tmp/agw',
      databaseUrl: 'postgres://agw:pw@db:5432/agw',
      redisUrl: 'redis://cache:6379',
      redisKeyPrefix: 'staging:',
      smtpUrl: 'smtp://mail:25',
      logLevel: 'debug',
      bodyLimitBytes: 2048,
    });
  });

  it('derives PUBLIC_BASE_URL from HOST and PORT, bracketing IPv6', () => {
    expect(loadConfig({ HOST: '::1', PORT: '81' }).publicBaseUrl).toBe('http://[::1]:81');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT', 'PORT must be an integer from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT', 'PORT must be an integer from 0 to 65535 (got "70000")'],
    [
      { DATABASE_POOL_SIZE: '0' },
      'DATABASE_POOL_SIZE',
      'DATABASE_POOL_SIZE must be an integer from 1 to 500 (got "0")',
    ],
    [{ HOST: 'http://x' }, 'HOST', 'HOST must be a hostname or IP address (e.g. 0.0.0.0) (got "http://x")'],
    [
      { LOG_LEVEL: 'loud' },
      'LOG_LEVEL',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ],
    [
      { BODY_LIMIT_BYTES: '0' },
      'BODY_LIMIT_BYTES',
      'BODY_LIMIT_BYTES must be an integer from 1 to 104857600 (got "0")',
    ],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL', 'PUBLIC_BASE_URL must be an absolute http(s) URL'],
    [
      { REDIS_URL: 'localhost:6379' },
      'REDIS_URL',
      'REDIS_URL must be a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379) (got a localhost: value)',
    ],
    [
      { REDIS_KEY_PREFIX: 'a b' },
      'REDIS_KEY_PREFIX',
      'REDIS_KEY_PREFIX must be at most 64 letters, digits or _ . : - (e.g. staging:) (got "a b")',
    ],
    [{ SMTP_URL: 'mail' }, 'SMTP_URL', 'SMTP_URL must be a smtp:// or smtps:// URL'],
    [
      { EGRESS_ALLOWED_HOSTS: 'api.example.com,https://x.org/' },
      'EGRESS_ALLOWED_HOSTS',
      'EGRESS_ALLOWED_HOSTS must be comma-separated host names (e.g. api.example.com,*.example.org) (got "api.example.com,https://x.org/")',
    ],
    [
      { EGRESS_ALLOW_HTTP: 'yes' },
      'EGRESS_ALLOW_HTTP',
      'EGRESS_ALLOW_HTTP must be true or false (got "yes")',
    ],
    [
      { DATABASE_STATEMENT_TIMEOUT_MS: '50' },
      'DATABASE_STATEMENT_TIMEOUT_MS',
      'DATABASE_STATEMENT_TIMEOUT_MS must be 0 or an integer from 100 to 600000 (got "50")',
    ],
    [
      { DATABASE_STATEMENT_TIMEOUT_MS: '30s' },
      'DATABASE_STATEMENT_TIMEOUT_MS',
      'DATABASE_STATEMENT_TIMEOUT_MS must be 0 or an integer from 100 to 600000 (got "30s")',
    ],
    [
      { JOB_RETENTION_HOURS: '12' },
      'JOB_RETENTION_HOURS',
      'JOB_RETENTION_HOURS must be an integer from 24 to 87600 (got "12")',
    ],
    [
      { HTTP_REQUEST_TIMEOUT_MS: '50' },
      'HTTP_REQUEST_TIMEOUT_MS',
      'HTTP_REQUEST_TIMEOUT_MS must be an integer from 100 to 600000 (got "50")',
    ],
    [
      { HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '15000' },
      'HTTP_HEADERS_TIMEOUT_MS',
      'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS (got 20000 > 15000)',
    ],
    [
      { HTTP_KEEP_ALIVE_TIMEOUT_MS: '5s' },
      'HTTP_KEEP_ALIVE_TIMEOUT_MS',
      'HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer from 100 to 600000 (got "5s")',
    ],
    [
      { DATA_DIR_ALLOW_SHARED: 'yes' },
      'DATA_DIR_ALLOW_SHARED',
      'DATA_DIR_ALLOW_SHARED must be true or false (got "yes")',
    ],
    [
      { SECRET_KEY: 'hunter2' },
      'SECRET_KEY',
      'SECRET_KEY must be 32 bytes as 64 hex or 44 base64 characters (e.g. from `openssl rand -hex 32`) (got a value that is not shown)',
    ],
    // The domains' settings, validated with the gateway's (they were read past validation before).
    [
      { CALENDAR_ORG_BOOKINGS_PER_HOUR: 'abc' },
      'CALENDAR_ORG_BOOKINGS_PER_HOUR',
      'CALENDAR_ORG_BOOKINGS_PER_HOUR must be an integer from 1 to 1000000 (got "abc")',
    ],
    [
      { CALENDAR_BOOKINGS_PER_MINUTE: '0' },
      'CALENDAR_BOOKINGS_PER_MINUTE',
      'CALENDAR_BOOKINGS_PER_MINUTE must be an integer from 1 to 1000000 (got "0")',
    ],
    [
      { ANALYTICS_EVENTS_PER_MINUTE: '-5' },
      'ANALYTICS_EVENTS_PER_MINUTE',
      'ANALYTICS_EVENTS_PER_MINUTE must be an integer from 1 to 1000000000 (got "-5")',
    ],
    [
      { BILLING_RENDER_THREADS: '65' },
      'BILLING_RENDER_THREADS',
      'BILLING_RENDER_THREADS must be an integer from 1 to 64 (got "65")',
    ],
  ])('rejects %j with a one-line message naming the variable', (env, variable, message) => {
    const error = failure(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(message);
    expect(error.message).toMatch(new RegExp(`^${variable} must `));
    expect(error.message).not.toContain('\n');
  });

  it('reads the egress allow-list as lower-cased host names and wildcard subdomains', () => {
    const config = loadConfig({
      EGRESS_ALLOWED_HOSTS: ' API.example.com, *.example.org ,127.0.0.1',
      EGRESS_ALLOW_HTTP: 'true',
    });
    expect(config.egressAllowedHosts).toEqual(['api.example.com', '*.example.org', '127.0.0.1']);
    expect(config.egressAllowHttp).toBe(true);
  });

  it('reads the statement timeout (0 keeps the server setting) and the job retention', () => {
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '5000' }).databaseStatementTimeoutMs).toBe(5000);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).databaseStatementTimeoutMs).toBe(0);
    expect(loadConfig({ JOB_RETENTION_HOURS: '24' }).jobRetentionHours).toBe(24);
  });

  it('reads the HTTP timeouts and DATA_DIR_ALLOW_SHARED', () => {
    const config = loadConfig({
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '4000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
      DATA_DIR_ALLOW_SHARED: 'true',
    });
    expect(config).toMatchObject({
      httpHeadersTimeoutMs: 2000,
      httpRequestTimeoutMs: 4000,
      httpKeepAliveTimeoutMs: 1000,
      dataDirAllowShared: true,
    });
    expect(loadConfig({}).dataDirAllowShared).toBe(false);
  });

  it('names the flag value when --port is bad', () => {
    expect(failure({ PORT: '8080' }, { port: 'x1' }).message).toContain('(got "x1")');
  });

  it('never echoes a database password in its message', () => {
    const error = failure({ DATABASE_URL: 'mysql://agw:hunter2@db/agw' });
    expect(error.variable).toBe('DATABASE_URL');
    expect(error.message).toBe(
      'DATABASE_URL must be a postgres:// or postgresql:// URL (e.g. postgres://agw:secret@127.0.0.1:5432/agw) (got a mysql: value)',
    );
    expect(error.message).not.toContain('hunter2');
  });

  it("reads the domains' settings with the gateway's and keeps them by domain", () => {
    const config = loadConfig({
      CALENDAR_BOOKINGS_PER_MINUTE: '30',
      CALENDAR_ORG_MAILS_PER_HOUR: '5',
      ANALYTICS_EVENTS_PER_MINUTE: '99999999',
      BILLING_RENDER_THREADS: '2',
    });
    expect(config.domainSettings).toMatchObject({
      calendar: {
        CALENDAR_BOOKINGS_PER_MINUTE: 30,
        CALENDAR_ORG_MAILS_PER_HOUR: 5,
        CALENDAR_READS_PER_MINUTE: 120,
      },
      analytics: { ANALYTICS_EVENTS_PER_MINUTE: 99999999 },
      billing: { BILLING_RENDER_THREADS: 2, BILLING_RENDER_TIMEOUT_MS: 60000 },
    });
  });
});
