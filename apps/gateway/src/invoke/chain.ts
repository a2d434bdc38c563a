import type { CapabilityDataPort } from '@agw/capabilities';
import { createValidator } from '@agw/contracts';
import {
  type Clock,
  createStandardChain,
  createStaticEgressPolicy,
  type GuardChain,
  type RateLimitRule,
  type RateLimits,
  systemClock,
  type WalletStore,
} from '@agw/guard';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { GatewayConfig } from '../config.js';
import { createKnexInstallationStore, createKnexKeyStore, toIso } from '../keys/key-store.js';
import { createAccessStateCache } from '../keys/state-cache.js';
import type { Logger } from '../logger.js';
import { createKnexApprovalStore } from '../ports/approval-store.js';
import { createKnexAuditSink } from '../ports/audit-sink.js';
import { createKnexExecutor, type KnexExecutor } from '../ports/executor.js';
import { createKnexWalletStore } from '../ports/wallet-store.js';
import { createGatewayRateLimiter } from './rate-limiter.js';

/**
 * Default buckets: generous enough never to trip a well-behaved agent, tight enough to stop a loop.
 * RATE_LIMIT_PER_INSTALLATION_PER_MINUTE / RATE_LIMIT_PER_CAPABILITY_PER_MINUTE override them.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  perInstallation: { limit: 1200, windowSeconds: 60 },
  perCapability: { limit: 600, windowSeconds: 60 },
};

/** The buckets of a configuration: the per-minute overrides, else {@link DEFAULT_RATE_LIMITS}. */
export function rateLimitsOf(config: GatewayConfig): RateLimits {
  const { perInstallation, perCapability } = DEFAULT_RATE_LIMITS;
  const perMinute = (limit: number | undefined, fallback: RateLimitRule | undefined) =>
    limit === undefined ? fallback : { limit, windowSeconds: 60 };
  return {
    perInstallation: perMinute(config.rateLimitPerInstallationPerMinute, perInstallation),
    perCapability: perMinute(config.rateLimitPerCapabilityPerMinute, perCapability),
  };
}

/** The invoke chain and the ports the routes and handlers share, built once per app. */
export interface InvokeRuntime {
  readonly chain: GuardChain;
  readonly executor: KnexExecutor;
  readonly wallet: WalletStore;
  readonly data: CapabilityDataPort;
  readonly clock: Clock;
}

/** Options of {@link createInvokeRuntime}. */
export interface InvokeRuntimeOptions {
  readonly clock?: Clock;
  /** Shares rate-limit buckets and access-state invalidation between instances when set. */
  readonly redis?: Redis | undefined;
  readonly logger?: Logger;
  readonly rateLimits?: RateLimits;
}

/**
 * Builds the nine-guard chain over the knex ports (schemas compiled once by the shared validator), with
 * key records and installation state cached (src/keys/state-cache.ts) and rate limits in Redis when
 * configured (src/invoke/rate-limiter.ts).
 */
export function createInvokeRuntime(knex: Knex, options: InvokeRuntimeOptions = {}): InvokeRuntime {
  const clock = options.clock ?? systemClock;
  const executor = createKnexExecutor(knex);
  const wallet = createKnexWalletStore(executor);
  const cache = createAccessStateCache({
    knex,
    redis: options.redis,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const chain = createStandardChain({
    clock,
    keys: cache.wrapKeys(createKnexKeyStore(knex)),
    installations: cache.wrapInstallations(createKnexInstallationStore(knex)),
    validator: createValidator(),
    approvals: createKnexApprovalStore(executor),
    audit: createKnexAuditSink(executor),
    wallet,
    // No capability with a handler reaches the network yet: the allow-list is empty.
    egress: createStaticEgressPolicy([]),
    rateLimiter: createGatewayRateLimiter({
      redis: options.redis,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    }),
    rateLimits: options.rateLimits ?? DEFAULT_RATE_LIMITS,
  });
  return { chain, executor, wallet, data: createKnexDataPort(executor), clock };
}

/** The handlers' query port over the current connection. */
function createKnexDataPort(executor: KnexExecutor): CapabilityDataPort {
  return {
    async getOrganization(organizationId) {
      const row = await executor
        .current()('organizations')
        .where({ id: organizationId })
        .first('id', 'name', 'short_id', 'is_active', 'created_at', 'updated_at');
      if (!row) return undefined;
      return {
        id: row.id,
        name: row.name,
        short_id: row.short_id,
        is_active: row.is_active,
        created_at: toIso(row.created_at),
        updated_at: toIso(row.updated_at),
      };
    },
  };
}
