import type { CapabilityHandler } from './define.js';

/**
 * One migration of a domain's tables, as plain SQL text so this package needs no driver or query
 * builder: the gateway runs `up` (or `down`) one statement at a time, in one transaction, in the same
 * ordered migration source as its own migrations (ordered by `name`, a `YYYYMMDDhhmmss_` prefix).
 * Append only: a published migration is never renamed or edited.
 */
export interface DomainMigration {
  readonly name: string;
  readonly up: readonly string[];
  readonly down: readonly string[];
}

/**
 * A domain: its handlers and the migrations of its tables. A domain table carries `organization_id`
 * under row-level security for the runtime role `agw_runtime`, with the policy
 * `organization_id = agw_current_organization()` (see `documents/migrations.ts`), and grants that role
 * the DML its handlers need: handlers run as that role with the tenant set per transaction.
 */
export interface CapabilityDomain {
  readonly name: string;
  readonly handlers: readonly CapabilityHandler<never>[];
  readonly migrations: readonly DomainMigration[];
}
