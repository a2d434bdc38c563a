import { Setting, settingsSchema } from '@agw/contracts';

/** pino's level names; `silent` turns logging off. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const MS = { minimum: 100, maximum: 600_000 } as const;

/**
 * Every environment variable of the gateway itself: type, default, bounds and what it does. The
 * domains declare theirs beside their code (`settings` of a domain); src/config.ts reads both, and
 * docs/configuration.md is rendered from both (test/config-docs.test.ts keeps it in step).
 */
export const gatewaySettings = settingsSchema({
  HOST: Setting.string({
    default: '127.0.0.1',
    pattern: '^[A-Za-z0-9.:-]{1,253}$',
    expectation: 'a hostname or IP address (e.g. 0.0.0.0)',
    description: 'interface to bind (`agw serve --host` wins)',
  }),
  PORT: Setting.integer({
    default: 8080,
    minimum: 0,
    maximum: 65_535,
    description: 'TCP port, `0` = any free port (`agw serve --port` wins)',
  }),
  PUBLIC_BASE_URL: Setting.string({
    pattern: '^https?://[^?#\\s]+$',
    expectation: 'an absolute http(s) URL without query or fragment (e.g. https://gateway.example.com)',
    defaultText: '`http://HOST:PORT`',
    description: 'the URL agents reach the gateway at (used in `/llms.txt`, `/openapi.json`, the manifest)',
  }),
  DATA_DIR: Setting.string({
    default: './.data',
    pattern: '^.{1,4096}$',
    expectation: 'a folder path',
    description:
      'embedded database (`DATA_DIR/pglite`) and dev mailbox (`DATA_DIR/mail`); created `0700`, everything in it owner-only (the gateway runs with umask `077`); a start on a data folder other users can open is refused — fix with `chmod -R go-rwx DATA_DIR` (`agw serve --data-dir` wins)',
  }),
  DATA_DIR_ALLOW_SHARED: Setting.boolean({
    default: false,
    description:
      '`true` starts even when `DATA_DIR`, `DATA_DIR/pglite`, `DATA_DIR/mail` or a key file is readable or writable by group or others',
  }),
  DATABASE_URL: Setting.url({
    protocols: ['postgres', 'postgresql'],
    example: 'postgres://agw:secret@127.0.0.1:5432/agw',
    defaultText: 'embedded PGlite under `DATA_DIR`',
    description: 'PostgreSQL to use instead of the embedded database',
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: Setting.integer({
    default: 30_000,
    minimum: 0,
    maximum: 600_000,
    // Below 100 ms ordinary statements would be cancelled under load.
    excluding: [1, 99],
    expectation: '0 or an integer from 100 to 600000',
    description:
      'PostgreSQL cancels a statement (lock waits included) running longer; the request answers 503 `dependency_unavailable` (retryable); `0` keeps the server/role setting; no effect on PGlite',
  }),
  DATABASE_POOL_SIZE: Setting.integer({
    minimum: 1,
    maximum: 500,
    defaultText: 'twice the CPU cores, at least 4, at most 10',
    description:
      'PostgreSQL connections this gateway process opens at most for requests, plus one for its periodic bookkeeping (charge roll-up, audit sealer); requests beyond wait for one (up to 3 s, then 503 `dependency_unavailable`). More connections than about twice the database server\'s cores make each statement slower, not more of them per second (docs/deploy.md, "Sizing"); behind pgbouncer its `default_pool_size` is the server\'s limit; no effect on PGlite',
  }),
  DATABASE_PREPARED_STATEMENTS: Setting.boolean({
    default: true,
    description:
      '`false` sends every statement unnamed (parsed per execution) for a pooler that does not keep named prepared statements across transactions — pgbouncer below 1.21 in transaction mode (docs/deploy.md)',
  }),
  REDIS_URL: Setting.url({
    protocols: ['redis', 'rediss'],
    example: 'redis://127.0.0.1:6379',
    defaultText: 'in-process (one instance)',
    description: 'Redis for what several instances share (rate limits, cache invalidation, locks)',
  }),
  REDIS_KEY_PREFIX: Setting.string({
    default: '',
    pattern: '^[A-Za-z0-9_.:-]{0,64}$',
    expectation: 'at most 64 letters, digits or _ . : - (e.g. staging:)',
    description:
      'put before every Redis key and channel: gateways with different databases sharing one Redis then share no rate-limit bucket or cache invalidation; every instance of one gateway uses the same prefix',
  }),
  SMTP_URL: Setting.url({
    protocols: ['smtp', 'smtps'],
    example: 'smtp://user:pass@127.0.0.1:587',
    defaultText: 'dev mailbox under `DATA_DIR/mail`',
    description: 'SMTP server for real mail (health checks its 220 greeting)',
  }),
  MAIL_FROM: Setting.string({
    default: 'Agent Gateway <no-reply@localhost>',
    pattern: '^[^\\r\\n]*@[^\\r\\n]+$',
    maxLength: 320,
    expectation: 'an address, e.g. "Agent Gateway <agw@example.com>"',
    description: 'sender of the gateway mail (codes, bookings, documents)',
  }),
  OPERATOR_EMAIL: Setting.string({
    default: '',
    pattern: '^$|^\\s*[^\\s@,]+@[^\\s@,]+\\s*(,\\s*[^\\s@,]+@[^\\s@,]+\\s*){0,19}$',
    maxLength: 2000,
    expectation: 'one or more comma-separated mail addresses (at most 20)',
    description:
      'operators mailed when an installation or a run approval starts waiting, with a link to the console; empty: no such mail',
  }),
  OPERATOR_DIGEST_SECONDS: Setting.integer({
    default: 300,
    minimum: 10,
    maximum: 86_400,
    description:
      'after an operator mail, what starts waiting within this long is listed in one digest mail at its end instead of a mail each',
  }),
  LOG_LEVEL: Setting.oneOf(logLevels, {
    default: 'info',
    lowercase: true,
    description: 'pino log level; logs are JSON lines with secrets redacted',
  }),
  SECRET_KEY: Setting.string({
    pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=?)$',
    expectation: '32 bytes as 64 hex or 44 base64 characters (e.g. from `openssl rand -hex 32`)',
    display: 'hidden',
    defaultText: 'generated into `DATA_DIR/secret.key` (0600)',
    description:
      'MACs for codes and idempotency fingerprints, encryption of stored replays and queued mail; several instances on one PostgreSQL must share it',
  }),
  BODY_LIMIT_BYTES: Setting.integer({
    default: 1_048_576,
    minimum: 1,
    maximum: 104_857_600,
    description:
      'largest accepted request body (larger → 413) from a caller with a valid key (`dry_run`/`invoke` add the upload maximum); a caller without a key is limited to 64 KiB, and a route that needs a key answers 401 before it reads the body',
  }),
  HTTP_HEADERS_TIMEOUT_MS: Setting.integer({
    ...MS,
    default: 10_000,
    description:
      'the request line and headers must arrive within this (at most `HTTP_REQUEST_TIMEOUT_MS`); otherwise 408, connection closed, a warn line',
  }),
  HTTP_REQUEST_TIMEOUT_MS: Setting.integer({
    ...MS,
    default: 30_000,
    description:
      'the whole request, body included, must arrive within this; otherwise 408, connection closed, a warn line',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Setting.integer({
    ...MS,
    default: 5000,
    description: 'an idle keep-alive connection is closed after this',
  }),
  SHUTDOWN_GRACE_MS: Setting.integer({
    ...MS,
    default: 10_000,
    description:
      'on SIGTERM `/health/ready` answers 503 at once, no connection is accepted, and requests in flight get this long to finish (each answered with `Connection: close`; still open after it, connections are cut); the job in progress, the domain flushes, the audit sealer and the mail outbox then get as long again each (one still busy is left behind and the next goes on, embedded gateways too); `agw serve` exits 0 once they are done, or 1 when a second SIGTERM comes or twice this bound has passed',
  }),
  OWNER_OTP_TTL_SECONDS: Setting.integer({
    default: 86_400,
    minimum: 1,
    maximum: 86_400,
    description: 'lifetime of the owner code',
  }),
  AGENT_OTP_TTL_SECONDS: Setting.integer({
    default: 3600,
    minimum: 1,
    maximum: 86_400,
    description: 'lifetime of the agent-mailbox code',
  }),
  QUOTE_TTL_SECONDS: Setting.integer({
    default: 900,
    minimum: 1,
    maximum: 86_400,
    description:
      'lifetime of the signed price quote `dry_run` answers (`estimated_cost.quote`); `invoke` refuses an expired one with 409 `quote_invalid`',
  }),
  OTP_RESEND_COOLDOWN_SECONDS: Setting.integer({
    default: 60,
    minimum: 0,
    maximum: 3600,
    description: 'minimum time between two codes of one kind',
  }),
  RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: Setting.integer({
    default: 1200,
    minimum: 1,
    maximum: 999_999,
    description: 'invokes per installation and minute (shared through Redis when `REDIS_URL` is set)',
  }),
  RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: Setting.integer({
    default: 600,
    minimum: 1,
    maximum: 999_999,
    description: 'invokes per installation and capability and minute',
  }),
  EGRESS_ALLOWED_HOSTS: Setting.string({
    default: '',
    pattern:
      '^$|^\\s*(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9.:-]*[A-Za-z0-9])?\\s*(,\\s*(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9.:-]*[A-Za-z0-9])?\\s*)*$',
    maxLength: 65_536,
    expectation: 'comma-separated host names (e.g. api.example.com,*.example.org)',
    description:
      'hosts capability handlers may reach; empty: no outbound network; anything else is refused with 403 `egress_denied` and audited',
  }),
  EGRESS_ALLOW_HTTP: Setting.boolean({
    default: false,
    description: 'also allow plain `http:` to those hosts (default `https:` only)',
  }),
  AUDIT_SEAL_INTERVAL_MS: Setting.integer({
    default: 1000,
    minimum: 10,
    maximum: 60_000,
    description: 'pause between audit-chain sealer runs',
  }),
  JOB_RETENTION_HOURS: Setting.integer({
    default: 168,
    // At least the idempotency retention (24 h): a replayed `accepted` answer must not point at a
    // swept job.
    minimum: 24,
    maximum: 87_600,
    description:
      'finished long-running jobs are deleted this long after they finished; polled afterwards → 404',
  }),
  METRICS_PORT: Setting.integer({
    minimum: 0,
    maximum: 65_535,
    defaultText: 'off',
    description:
      'serves Prometheus metrics at `GET /metrics` on this port of its own (`0`: any free port), never on the main port; unset: no metrics are recorded (docs/observability.md)',
  }),
  METRICS_HOST: Setting.string({
    default: '127.0.0.1',
    pattern: '^[A-Za-z0-9.:-]{1,253}$',
    expectation: 'a hostname or IP address (e.g. 0.0.0.0)',
    description:
      'interface the metrics port binds; loopback by default: bind another only on a network that only your Prometheus reaches (the metrics have no key)',
  }),
});
