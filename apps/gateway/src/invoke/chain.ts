import type { CapabilityDataPort } from '@agw/capabilities';
import { createValidator } from '@agw/contracts';
import {
  type Clock,
  createMemoryRateLimiter,
  createStandardChain,
  createStaticEgressPolicy,
  type GuardChain,
  type RateLimits,
  systemClock,
  type WalletStore,
} from '@agw/guard';
import type { Knex } from 'knex';
import { createKnexInstallationStore, createKnexKeyStore, toIso } from '../keys/key-store.js';
import { createKnexApprovalStore } from '../ports/approval-store.js';
import { createKnexAuditSink } from '../ports/audit-sink.js';
import { createKnexExecutor, type KnexExecutor } from '../ports/executor.js';
import { createKnexWalletStore } from '../ports/wallet-store.js';

/**
 * Default buckets: generous enough never to trip a well-behaved agent, tight enough to stop a loop.
 * In-process for now (one gateway process); the Redis-shared limiter replaces it per issue 4.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  perInstallation: { limit: 1200, windowSeconds: 60 },
  perCapability: { limit: 600, windowSeconds: 60 },
};

/** The invoke chain and the ports the routes and handlers share, built once per app. */
export interface InvokeRuntime {
  readonly chain: GuardChain;
  readonly executor: KnexExecutor;
  readonly wallet: WalletStore;
  readonly data: CapabilityDataPort;
  readonly clock: Clock;
}

/** Builds the nine-guard chain over the knex ports (schemas compiled once by the shared validator). */
export function createInvokeRuntime(knex: Knex, clock: Clock = systemClock): InvokeRuntime {
  const executor = createKnexExecutor(knex);
  const wallet = createKnexWalletStore(executor);
  const chain = createStandardChain({
    clock,
    keys: createKnexKeyStore(knex),
    installations: createKnexInstallationStore(knex),
    validator: createValidator(),
    approvals: createKnexApprovalStore(executor),
    audit: createKnexAuditSink(executor),
    wallet,
    // No capability with a handler reaches the network yet: the allow-list is empty.
    egress: createStaticEgressPolicy([]),
    rateLimiter: createMemoryRateLimiter({ clock }),
    rateLimits: DEFAULT_RATE_LIMITS,
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
