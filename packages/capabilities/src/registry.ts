import { analyticsDomain } from './analytics/index.js';
import { assistDomain } from './assist/index.js';
import { billingDomain } from './billing/index.js';
import { calendarDomain } from './calendar/index.js';
import { coreDomain } from './core/index.js';
import type { CapabilityHandler } from './define.js';
import { documentsDomain } from './documents/index.js';
import type { CapabilityDomain, DomainMigration } from './domain.js';
import { walletDomain } from './wallet/index.js';

/**
 * Every domain this package ships. The gateway runs their handlers and their migrations from here:
 * adding a domain is one line in this list.
 */
export const capabilityDomains: readonly CapabilityDomain[] = Object.freeze([
  analyticsDomain,
  assistDomain,
  billingDomain,
  calendarDomain,
  coreDomain,
  documentsDomain,
  walletDomain,
]);

/** Every capability with a working handler; the gateway's catalog lists exactly these. */
export const capabilityHandlers: readonly CapabilityHandler<never>[] = Object.freeze(
  capabilityDomains.flatMap((domain) => domain.handlers),
);

/** Every domain's migrations (the gateway orders them by name together with its own). */
export const capabilityMigrations: readonly DomainMigration[] = Object.freeze(
  capabilityDomains.flatMap((domain) => domain.migrations),
);

/** Every PostgreSQL extension a domain needs, each once (the gateway creates them before migrating). */
export const capabilityExtensions: readonly string[] = Object.freeze([
  ...new Set(capabilityDomains.flatMap((domain) => domain.extensions ?? [])),
]);

/** The handler of `id`@`version`, or undefined. */
export function findCapabilityHandler(id: string, version: string): CapabilityHandler<never> | undefined {
  return capabilityHandlers.find(
    (handler) => handler.contract.id === id && handler.contract.version === version,
  );
}
