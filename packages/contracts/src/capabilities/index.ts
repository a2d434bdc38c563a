import { analyticsCapabilities } from './analytics.js';
import { assistCapabilities } from './assist.js';
import { billingDeliveryCapabilities } from './billing-delivery.js';
import { billingDocumentCapabilities } from './billing-documents.js';
import { billingExportCapabilities } from './billing-exports.js';
import { billingOperationCapabilities } from './billing-operations.js';
import { billingPaymentCapabilities } from './billing-payments.js';
import { billingReminderCapabilities } from './billing-reminders.js';
import { billingSettingsCapabilities } from './billing-settings.js';
import { calendarCapabilities } from './calendar.js';
import { calendarLinkCapabilities } from './calendar-links.js';
import { platformCapabilities } from './platform.js';
import type { CapabilityContract, CapabilityIOOf } from './types.js';

const all = [
  ...analyticsCapabilities,
  ...assistCapabilities,
  ...billingSettingsCapabilities,
  ...billingDocumentCapabilities,
  ...billingExportCapabilities,
  ...billingDeliveryCapabilities,
  ...billingOperationCapabilities,
  ...billingPaymentCapabilities,
  ...billingReminderCapabilities,
  ...calendarCapabilities,
  ...calendarLinkCapabilities,
  ...platformCapabilities,
] as const;

type AnyContract = (typeof all)[number];

/** Every capability contract of the catalog, sorted by id. */
export const capabilityContracts: readonly CapabilityContract[] = Object.freeze(
  [...all].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
);

/** Id of a capability this package knows. */
export type CapabilityId = AnyContract['id'];

/** Typed params (`input`) and result (`output`) per capability id. */
export type CapabilityIO = { [C in AnyContract as C['id']]: CapabilityIOOf<C> };

/** The contract of `id` at `version` (any version when omitted; there is one version per id today). */
export function findCapabilityContract(id: string, version?: string): CapabilityContract | undefined {
  return capabilityContracts.find((c) => c.id === id && (version === undefined || c.version === version));
}

export type { CapabilityContract, CapabilityRiskLevel, TypedCapabilityContract } from './types.js';
export { defineCapability } from './types.js';
