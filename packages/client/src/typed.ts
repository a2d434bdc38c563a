import type {
  CapabilityDescription,
  CapabilityId,
  CapabilityIO,
  DryRunResponse,
  InvokeResponse,
} from '@agw/contracts';
import type { RequestOptions } from './options.js';

/** Params of capability `Id`, from the contracts. */
export type CapabilityInput<Id extends CapabilityId> = CapabilityIO[Id]['input'];

/** Result of capability `Id`, from the contracts. */
export type CapabilityOutput<Id extends CapabilityId> = CapabilityIO[Id]['output'];

/** An InvokeResponse whose `result` has the type of capability `Id`. */
export type TypedInvokeResponse<Id extends CapabilityId> = Omit<
  InvokeResponse,
  'result' | 'capability_id'
> & {
  capability_id: Id;
  result?: CapabilityOutput<Id>;
};

/** A DryRunResponse of capability `Id`. */
export type TypedDryRunResponse<Id extends CapabilityId> = Omit<DryRunResponse, 'capability_id'> & {
  capability_id: Id;
};

/** The describe answer of capability `Id`. */
export type TypedCapabilityDescription<Id extends CapabilityId> = Omit<CapabilityDescription, 'id'> & {
  id: Id;
};

/** Options of describe and dry_run. */
export interface VersionOptions extends RequestOptions {
  /** Capability version (`1.0.0`); the gateway resolves it when omitted. */
  version?: string;
}

/** Options of invoke. */
export interface InvokeOptions extends VersionOptions {
  /** Your own `idempotency_key` (16–128 visible ASCII characters); a UUID v4 is generated otherwise. */
  idempotencyKey?: string;
  /** The `approval_token` of an approved `pending_approval` answer. */
  approvalToken?: string;
  /**
   * A price quote from {@link GatewayClient.quote} (a dry_run's `estimated_cost.quote`), sent as the
   * `Agw-Quote` header: the run is charged at most the quoted `amount_max`; other params, an expired or
   * foreign quote are refused with 409 `quote_invalid` before anything runs.
   */
  quote?: string;
  /**
   * Wait for a long-running capability: an `accepted` answer is polled (see `waitForInvocation`) and the
   * final answer returned. `true` waits up to 15 minutes; `{ maxWaitMs }` sets the bound.
   */
  waitForJob?: boolean | { maxWaitMs?: number };
}

/**
 * The `poll` object of an `accepted` InvokeResponse (our decision; the spec leaves it free-form):
 * `url` is a path relative to the base URL answering GET with the current InvokeResponse.
 */
export interface InvocationPoll {
  url: string;
  retry_after_seconds?: number;
}

/**
 * A price quote (beyond the spec): what {@link GatewayClient.quote} returns from a valid dry_run. Pass
 * `quote` to invoke (`{ quote }`) with the same params before `expires_at`.
 */
export interface CapabilityQuote {
  /** Opaque and signed (`agw_q_…`): bound to this installation, capability, version and params. */
  quote: string;
  /** ISO 8601: when the gateway stops honouring it. */
  expires_at: string;
  /** The most the run will be charged, in credits. */
  amount_max: number;
  /** The audit id of the dry_run that issued it. */
  audit_id: string;
}
