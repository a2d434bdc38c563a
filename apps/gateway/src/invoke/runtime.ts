import type { CapabilityFetch } from '@agw/capabilities';
import { createValidator } from '@agw/contracts';
import {
  type Clock,
  createEgressFetch,
  createStandardChain,
  createStaticEgressPolicy,
  type GuardChain,
  type KeyStore,
  type Principal,
  type RateLimitRule,
  type RateLimits,
  systemClock,
  type WalletStore,
} from '@agw/guard';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { GatewayConfig } from '../config.js';
import { createKnexInstallationStore, createKnexKeyStore } from '../keys/key-store.js';
import { createAccessStateCache } from '../keys/state-cache.js';
import type { Logger } from '../logger.js';
import type { MailStaging } from '../mail/domain-mail.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { OperatorNotices } from '../operator-notices/notices.js';
import { createKnexApprovalStore } from '../ports/approval-store.js';
import { createKnexAuditSink } from '../ports/audit-sink.js';
import { createKnexKillSwitchStore } from '../ports/kill-switch-store.js';
import { createKnexWalletStore } from '../ports/wallet-store.js';
import type { Tracing } from '../tracing/tracing.js';
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
  readonly chain: GuardChain<Principal>;
  /** Billing's wallet port (a paid read writes its charge through it, src/invoke/paid-read.ts). */
  readonly wallet: WalletStore;
  /** The pool each run's unit of work opens on (src/invoke/unit-of-work.ts). */
  readonly knex: Knex;
  readonly clock: Clock;
  /** Key records by prefix, cached (src/keys/state-cache.ts): also what search and describe read. */
  readonly keys: KeyStore;
  /** The handler's fetch for one run: only `hosts` (the contract's `egress`, already allow-listed). */
  fetchFor(hosts: readonly string[]): CapabilityFetch;
  /** Where `ctx.mail` stages mail; without it a handler's `ctx.mail.stage` throws. */
  readonly mail: MailStaging | undefined;
  /** PUBLIC_BASE_URL, a handler's `ctx.publicBaseUrl` (absolute links in answers). */
  readonly publicBaseUrl: string | undefined;
  /** The handler's span when tracing is on (src/tracing). */
  readonly tracing: Tracing | undefined;
  /** Where runs are counted and timed when metrics are on (src/metrics). */
  readonly metrics: GatewayMetrics | undefined;
}

/** Where handlers may reach (EGRESS_ALLOWED_HOSTS, EGRESS_ALLOW_HTTP). */
export interface EgressOptions {
  readonly allowedHosts: readonly string[];
  readonly allowHttp: boolean;
}

/** The egress options of a configuration: no host and `https:` only unless configured. */
export function egressOf(config: GatewayConfig): EgressOptions {
  return { allowedHosts: config.egressAllowedHosts ?? [], allowHttp: config.egressAllowHttp ?? false };
}

/** Options of {@link createInvokeRuntime}. */
export interface InvokeRuntimeOptions {
  readonly clock?: Clock;
  /** Shares rate-limit buckets and access-state invalidation between instances when set. */
  readonly redis?: Redis | undefined;
  readonly logger?: Logger;
  readonly rateLimits?: RateLimits;
  /** Default: no host allowed. */
  readonly egress?: EgressOptions;
  /** The outbox and secret box behind a handler's `ctx.mail`. */
  readonly mail?: MailStaging;
  /** Mails the operators when a run approval starts waiting (OPERATOR_EMAIL). */
  readonly notices?: OperatorNotices;
  /** PUBLIC_BASE_URL (without a trailing slash), handed to handlers as `ctx.publicBaseUrl`. */
  readonly publicBaseUrl?: string;
  /** Spans per guard, handler and egress call (OTEL_* set, src/tracing); none without it. */
  readonly tracing?: Tracing | undefined;
  /** Counts and times runs (METRICS_PORT set); nothing is recorded without it. */
  readonly metrics?: GatewayMetrics | undefined;
}

/**
 * Builds the nine-guard chain over the knex ports (schemas compiled once by the shared validator), with
 * key records and installation state cached (src/keys/state-cache.ts) and rate limits in Redis when
 * configured (src/invoke/rate-limiter.ts).
 */
export function createInvokeRuntime(knex: Knex, options: InvokeRuntimeOptions = {}): InvokeRuntime {
  const clock = options.clock ?? systemClock;
  const egress = options.egress ?? { allowedHosts: [], allowHttp: false };
  const protocols = egress.allowHttp ? ['https:', 'http:'] : ['https:'];
  // With tracing on, each outbound call is a span and carries its traceparent.
  const outbound = options.tracing?.fetch ?? fetch;
  const noEgress = createEgressFetch([], outbound, { protocols });
  const wallet = createKnexWalletStore(knex);
  const cache = createAccessStateCache({
    knex,
    redis: options.redis,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const keys = cache.wrapKeys(createKnexKeyStore(knex));
  const chain = createStandardChain(
    {
      clock,
      keys,
      installations: cache.wrapInstallations(createKnexInstallationStore(knex)),
      // The kill switch alone, cached: a free read then reads no wallet (billing reads it when paid).
      killSwitch: cache.wrapKillSwitch(createKnexKillSwitchStore(knex)),
      validator: createValidator(),
      // The mail's secret box also encrypts an approval's params for the operator console.
      approvals: createKnexApprovalStore(knex, options.mail?.box, options.notices),
      audit: createKnexAuditSink(knex),
      wallet,
      egress: createStaticEgressPolicy(egress.allowedHosts),
      rateLimiter: createGatewayRateLimiter({
        redis: options.redis,
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      }),
      rateLimits: options.rateLimits ?? DEFAULT_RATE_LIMITS,
      // One audit row per run: its outcome record, written at settle, is the allowed decision's record too
      // (its trace holds every guard's decision). A handler runs either in the same transaction as its
      // audit rows, or (a free read) changes nothing that a decision record would answer for.
      deferAuditDecision: true,
    },
    options.tracing === undefined ? {} : { observeGuard: options.tracing.observeGuard },
  );
  return {
    chain,
    wallet,
    knex,
    clock,
    keys,
    // A refused URL throws GuardDenied(egress_denied); invoke audits it as the run's outcome. Most
    // capabilities declare no host: they share one fetch that refuses everything (no per-run set-up).
    fetchFor: (hosts) => (hosts.length === 0 ? noEgress : createEgressFetch(hosts, outbound, { protocols })),
    mail: options.mail,
    publicBaseUrl: options.publicBaseUrl,
    tracing: options.tracing,
    metrics: options.metrics,
  };
}
