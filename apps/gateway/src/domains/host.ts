import { randomUUID } from 'node:crypto';
import type { DomainHost } from '@agw/capabilities';
import { errorCodes } from '@agw/contracts';
import type { RateLimiter } from '@agw/guard';
import type { Knex } from 'knex';
import { sqlPoolOf } from '../db/pool.js';
import { enterTenant } from '../db/tenant.js';
import type { Logger } from '../logger.js';
import { type MailStaging, transactionMail } from '../mail/domain-mail.js';

/** What a gateway process gives every domain it starts. */
export interface DomainHostOptions {
  readonly knex: Knex;
  readonly mail: MailStaging;
  /** The gateway's rate limiter (Redis-shared when configured). */
  readonly rateLimiter: RateLimiter;
  readonly publicBaseUrl: string;
  readonly logger: Logger;
  /** Each domain's validated settings by domain name (`domainSettingsOf` in src/config.ts). */
  readonly settings?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

// Domain buckets live beside the guard's; the prefix keeps a domain's key from ever naming a guard bucket.
const BUCKET_PREFIX = 'domain:';

/** The {@link DomainHost} of one domain: its log lines carry `domain`. */
export function createDomainHost(domain: string, options: DomainHostOptions): DomainHost {
  const { knex, logger } = options;
  const log = logger.child({ domain });
  return {
    sql: sqlPoolOf(knex),
    async asTenant(organizationId, fn) {
      let dispatch: (() => void) | undefined;
      const value = await sqlPoolOf(knex).transaction(async (sql) => {
        await enterTenant(sql, organizationId);
        const mail = transactionMail(sql, options.mail);
        dispatch = () => mail.dispatch();
        return fn(sql, mail.port);
      });
      // After COMMIT: a rolled-back transaction's mail never existed.
      dispatch?.();
      return value;
    },
    async rateLimit(key, limit, windowSeconds) {
      const result = await options.rateLimiter.consume({
        key: `${BUCKET_PREFIX}${key}`,
        limit,
        windowSeconds,
        cost: 1,
      });
      return { allowed: result.allowed, retryAfterSeconds: result.retryAfterSeconds };
    },
    publicBaseUrl: options.publicBaseUrl.replace(/\/+$/, ''),
    ids: { uuid: randomUUID },
    clock: { now: () => new Date() },
    settings: options.settings?.[domain] ?? {},
    // Rendered by the pipeline that answers the route (renderError, as every other error).
    error: (code, { headers, ...error } = {}) => ({
      status: errorCodes[code].status,
      ...(headers === undefined ? {} : { headers }),
      error: { code, ...error },
    }),
    log: {
      info: (fields, message) => log.info(fields, message),
      warn: (fields, message) => log.warn(fields, message),
      error: (fields, message) => log.error(fields, message),
    },
  };
}
