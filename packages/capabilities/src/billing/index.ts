import type { CapabilityHandler } from '../define.js';
import type { CapabilityDomain } from '../domain.js';
import { billingMigrations } from './migrations.js';

/**
 * Every billing handler. The einvoice outputs (`outputs/`) add theirs to this list.
 */
export const billingHandlers: readonly CapabilityHandler<never>[] = [];

/** `billing`: quote to cash — accounts, items, documents with EN 16931 totals, numbers, payments, reminders. */
export const billingDomain: CapabilityDomain = {
  name: 'billing',
  handlers: billingHandlers,
  migrations: billingMigrations,
};
