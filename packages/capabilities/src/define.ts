import type { CapabilityContract } from '@agw/contracts';

/** A credit amount: an exact decimal string such as `"12.5"` (never a float). */
export type Credits = string;

/** An organization as the data port reads it (timestamps as ISO 8601 strings). */
export interface OrganizationRecord {
  readonly id: string;
  readonly name: string;
  readonly short_id: string;
  readonly is_active: boolean;
  readonly created_at: string;
  readonly updated_at: string;
}

/** The small query port a gateway implements for the handlers (no database driver in this package). */
export interface CapabilityDataPort {
  getOrganization(organizationId: string): Promise<OrganizationRecord | undefined>;
}

/** A budget policy profile; a null cap means no cap. */
export interface WalletPolicyView {
  readonly policy_profile_id: string | null;
  readonly task_cap_credits: Credits | null;
  readonly daily_cap_credits: Credits | null;
  readonly monthly_cap_credits: Credits | null;
  readonly burn_rate_hourly_cap_credits: Credits | null;
  readonly kill_switch_enabled: boolean;
}

/** One read of a wallet: balance, policy and spend per window (structurally the guard's WalletSnapshot). */
export interface WalletView {
  readonly organization_id: string;
  readonly balance_credits: Credits;
  readonly policy: WalletPolicyView;
  /** Spent in the last hour, the current UTC day and the current UTC month. */
  readonly spent: {
    readonly hour_credits: Credits;
    readonly today_credits: Credits;
    readonly month_credits: Credits;
  };
}

/** The read-only wallet port. */
export interface WalletReadPort {
  getSnapshot(organizationId: string, now: Date): Promise<WalletView>;
}

/** What a handler knows about its run. Tenancy comes from here, never from params. */
export interface CapabilityContext {
  readonly organizationId: string;
  readonly installationId: string;
  readonly now: Date;
  readonly db: CapabilityDataPort;
  readonly wallet: WalletReadPort;
}

/** The handler of one capability version: its contract and the function that runs it. */
export interface CapabilityHandler<Input = Record<string, unknown>, Output = unknown> {
  readonly contract: CapabilityContract;
  /** Runs with params already validated against `contract.input_schema` by the guard chain. */
  handle(input: Input, ctx: CapabilityContext): Promise<Output>;
}

/**
 * Identity helper that ties a handler to its contract with full type inference.
 * @example
 * const ping = defineCapabilityHandler({ contract, handle: async () => ({ ok: true }) });
 */
export function defineCapabilityHandler<Input, Output>(
  handler: CapabilityHandler<Input, Output>,
): CapabilityHandler<Input, Output> {
  return handler;
}

/** Thrown by a handler when the run cannot proceed for a reason the caller should see (not a fault). */
export class CapabilityError extends Error {
  override readonly name = 'CapabilityError';
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}
