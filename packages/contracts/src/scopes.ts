/**
 * Every scope the interface knows, with what it allows. The spec names the first eight; the domain
 * scopes (billing, calendar, analytics, assist) are ours, one read/write pair per capability domain.
 */
export const knownScopes = Object.freeze({
  'platform:bootstrap': 'Bootstrap key only: create the organization (POST /organizations).',
  'org:manage': 'Manage the installation itself: rotate keys.',
  'platform.catalog:read': 'Search and describe capabilities.',
  'core:read': 'Read the organization (core.org.current.get).',
  'core:write': 'Change core organization data.',
  'documents:read': 'Read stored documents.',
  'documents:write': 'Upload documents (documents.document.upload).',
  'billing.wallet:read': 'Read wallet balance and budget policy (wallet.agent_budget.guard.check).',
  'billing:read': 'Read billing documents, items, payments and reminders; render PDFs and e-invoices.',
  'billing:write': 'Create and convert billing documents, record payments, save profiles and bank accounts.',
  'calendar:read': 'Read calendars, availability, booking links and bookings.',
  'calendar:write': 'Manage calendars, availability, booking links, templates and bookings.',
  'analytics:read': 'Read analytics events and statistics.',
  'analytics:write': 'Manage analytics properties (sites, their domains, time zone and retention).',
  'assist:read': 'Read assistant artifacts.',
  'assist:write': 'Save new artifact versions; archive and unarchive artifacts.',
} as const);

/** A scope name the interface knows. */
export type KnownScope = keyof typeof knownScopes;

/** Scopes an approved installation key gets by default: everything except `platform:bootstrap`. */
export const defaultInstallationScopes: readonly KnownScope[] = Object.freeze(
  (Object.keys(knownScopes) as KnownScope[]).filter((scope) => scope !== 'platform:bootstrap'),
);
