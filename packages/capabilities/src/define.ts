import type { CapabilityContract } from '@agw/contracts';
import type { MailPort } from './mail.js';
import type { Sql } from './sql.js';

/** A credit amount: an exact decimal string such as `"12.5"` (never a float). */
export type Credits = string;

/** A stored document as a handler answers it (no content; timestamps as ISO 8601 strings). */
export interface DocumentRecord {
  readonly id: string;
  readonly file_name: string;
  readonly mime_type: string;
  readonly size_bytes: number;
  readonly sha256: string;
  readonly created_at: string;
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

/** Fresh identifiers for the rows a handler writes. */
export interface IdGenerator {
  /** A random UUID v4. */
  uuid(): string;
}

/** What a handler knows about its run. Tenancy comes from here, never from params. */
export interface CapabilityContext {
  readonly organizationId: string;
  readonly installationId: string;
  readonly now: Date;
  /**
   * SQL bound to the invoke's transaction: the handler's writes commit with the charge and the audit
   * record, or not at all. It runs as the database role `agw_runtime` with this run's organization set,
   * so row-level security shows the handler its own organization's rows only; bind
   * `organizationId` in every query anyway (indexes start with it). Do not keep it past `handle`.
   */
  readonly sql: Sql;
  readonly ids: IdGenerator;
  /** Aborted when the run ends (or the gateway gives up on it): pass it to long work and to `fetch`. */
  readonly signal: AbortSignal;
  readonly wallet: WalletReadPort;
  /**
   * The only way a handler reaches the network: a fetch limited to the hosts its contract declares in
   * `egress` (and the gateway allow-lists). Any other URL throws; the gateway answers 403 `egress_denied`.
   */
  readonly fetch: CapabilityFetch;
  /**
   * Stages mail in this run's transaction (sent after it commits, never if it rolls back): a booking
   * confirmation, an invoice with its PDF.
   */
  readonly mail: MailPort;
  /**
   * PUBLIC_BASE_URL without a trailing slash (`https://gateway.example.com`): where the gateway's own
   * public pages are, for absolute links in answers (a booking link's `url`). Absent when the host has
   * none (a handler run outside a gateway).
   */
  readonly publicBaseUrl?: string;
  /**
   * Reports what this run costs when it is less than the contract's `cost_credits` (the estimate the
   * budget was checked against; more is never charged): `'0'` for bytes answered from an archive that
   * an earlier run already paid for. Absent when the host charges the estimate alone.
   */
  readonly reportCost?: (credits: Credits) => void;
}

/** The fetch a handler gets (standard signature, limited to allow-listed hosts). */
export type CapabilityFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** The handler of one capability version: its contract and the function that runs it. */
export interface CapabilityHandler<Input = Record<string, unknown>, Output = unknown> {
  readonly contract: CapabilityContract;
  /** Runs with params already validated against `contract.input_schema` by the guard chain. */
  handle(input: Input, ctx: CapabilityContext): Promise<Output>;
  /**
   * Checks of params the input schema cannot express (e.g. that base64 content is what its declared
   * type says), without any port: `dry_run` reports them as violations. `handle` must run them too.
   */
  check?(input: Input): Promise<readonly CapabilityViolation[]>;
  /**
   * The handler's own business rules, run without effect: `dry_run` answers its violations (and shows
   * its `preview`), and `invoke` runs it before it asks an operator to approve, so no operator approves
   * a call that would fail. Share the rules with `handle` (one function both call, e.g. through
   * {@link preflightOf}); `handle` still enforces them. Its `sql` is a READ ONLY transaction that is
   * always rolled back: PostgreSQL refuses any write, lock or number assignment in it.
   */
  preflight?(input: Input, ctx: PreflightContext): Promise<CapabilityPreflight>;
}

/**
 * What a preflight knows: the tenant, the clock, a read-only SQL port and the wallet read. No mail, no
 * fetch and no ids: a preflight has no effect and assigns nothing.
 */
export interface PreflightContext {
  readonly organizationId: string;
  readonly installationId: string;
  readonly now: Date;
  /**
   * SQL in a READ ONLY transaction as the tenant (row-level security as for `handle`), rolled back when
   * the preflight returns: a write, `SELECT … FOR UPDATE` or `nextval` is refused by PostgreSQL.
   */
  readonly sql: Sql;
  readonly wallet: WalletReadPort;
}

/** What a preflight found: the run's violations (none: it would pass) and what it would produce. */
export interface CapabilityPreflight {
  readonly violations: readonly CapabilityViolation[];
  /** What the run would produce (a draft's totals, the slot a booking takes): a small JSON object. */
  readonly preview?: Readonly<Record<string, unknown>>;
  /**
   * The error the rules threw, which `violations` lists ({@link preflightOf} keeps it): invoke answers
   * it before an approval exactly as it answers the same throw from `handle`.
   */
  readonly refusal?: CapabilityError;
}

/** The error codes a handler's own rules answer (see {@link CapabilityError}). */
export type CapabilityErrorCode = 'not_found' | 'conflict' | 'validation_failed' | 'dependency_unavailable';

/** One violation found by a handler's own checks, in the shape of the schema guard's `details[]`. */
export interface CapabilityViolation {
  /** JSON Pointer into the request body, e.g. `/params/mime_type`. */
  readonly schema_pointer: string;
  readonly keyword: string;
  readonly message: string;
  /** The error code invoke answers for it (default `validation_failed`). */
  readonly code?: CapabilityErrorCode | 'budget_exceeded' | 'rate_limited';
  /** What to do about it, e.g. `Record at most 378.27 EUR.` */
  readonly hint?: string;
  /** When the refusal lifts by itself (a budget window that resets). */
  readonly retry_after_seconds?: number;
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

/**
 * Thrown by a handler when the run cannot proceed for a reason the caller should see (not a fault).
 * `validation_failed` carries the violations: the first one's pointer becomes the envelope's
 * `schema_pointer`, all of them its `details[]`. `dependency_unavailable` (retryable) says when to try
 * again in `retryAfterSeconds`, e.g. a rendering that ran past its time budget.
 */
export class CapabilityError extends Error {
  override readonly name = 'CapabilityError';
  constructor(
    readonly code: CapabilityErrorCode,
    message: string,
    readonly violations: readonly CapabilityViolation[] = [],
    readonly retryAfterSeconds?: number,
    /** What the caller can do about it; the envelope's `hint` (default: the first violation's). */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * A preflight that shares its rules with `handle`: `rules` throws a {@link CapabilityError} as `handle`
 * would, or answers the preview of what the run would produce (or nothing). The error's violations come
 * back with its code and hint (an error without violations becomes one at `pointer`), and the error
 * itself as the `refusal` invoke answers. Any other throw is a fault and rethrown.
 * @example
 * preflight: (input, ctx) => preflightOf(async () => draftPreview(await prepareDraft(input, ctx)))
 * @example
 * preflight: (input, ctx) => preflightOf(async () => void paymentRules(input, ctx), '/params/document_id')
 */
export async function preflightOf(
  rules: () => Promise<Readonly<Record<string, unknown>> | undefined>,
  pointer = '/params',
): Promise<CapabilityPreflight> {
  try {
    const preview = await rules();
    return preview === undefined ? { violations: [] } : { violations: [], preview };
  } catch (error) {
    if (!(error instanceof CapabilityError)) throw error;
    return { violations: violationsOfError(error, pointer), refusal: error };
  }
}

/** A CapabilityError as violations (code and hint on each), one at `pointer` when it lists none. */
function violationsOfError(error: CapabilityError, pointer = '/params'): CapabilityViolation[] {
  const extra = {
    code: error.code,
    ...(error.retryAfterSeconds === undefined ? {} : { retry_after_seconds: error.retryAfterSeconds }),
  };
  if (error.violations.length === 0) {
    const hint = error.hint === undefined ? {} : { hint: error.hint };
    return [{ schema_pointer: pointer, keyword: error.code, message: error.message, ...extra, ...hint }];
  }
  return error.violations.map((violation) => {
    const hint = violation.hint ?? error.hint;
    return { ...violation, ...extra, ...(hint === undefined ? {} : { hint }) };
  });
}
