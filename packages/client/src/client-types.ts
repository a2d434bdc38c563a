import type {
  AgentOtpResendResponse,
  AgentOtpVerifyRequest,
  AgentOtpVerifyResponse,
  BootstrapKey,
  CapabilityCatalog,
  CapabilityDescription,
  CapabilityId,
  DryRunResponse,
  HealthResponse,
  InvokeResponse,
  KeysRotateResponse,
  McpManifest,
  McpTools,
  OrganizationsRequest,
  OrganizationsResponse,
  OrgCurrentResponse,
  OwnerOtpClaimRequest,
  OwnerOtpClaimResponse,
  OwnerOtpResendResponse,
  RegisterRequest,
  RegisterResponse,
  SearchCapabilitiesRequest,
  SearchCapabilitiesResponse,
} from '@agw/contracts';
import type { ApprovalWaitOptions } from './approval.js';
import type { OnboardOptions, OnboardResult } from './onboard.js';
import type { MutationOptions, RequestOptions } from './options.js';
import type { PaidRunOptions, PaidRunResult } from './paid.js';
import type {
  CapabilityInput,
  CapabilityQuote,
  InvocationPoll,
  InvokeOptions,
  TypedCapabilityDescription,
  TypedDryRunResponse,
  TypedInvokeResponse,
  VersionOptions,
} from './typed.js';

/** A first answer of POST /register: the bootstrap key is present (a replay throws instead). */
export type IssuedRegistration = RegisterResponse & { bootstrap_key: BootstrapKey };

/** Options of `waitForInvocation`. */
export interface WaitForInvocationOptions extends RequestOptions {
  /** Give up (InvocationTimeoutError) when the invocation is still `accepted` after this long. Default 15 min. */
  maxWaitMs?: number;
}

/** describe, dry_run and invoke for ids this SDK version does not know (e.g. read from a CLI argument). */
export interface UncheckedMetaTools {
  describe(id: string, options?: VersionOptions): Promise<CapabilityDescription>;
  dryRun(id: string, params: Record<string, unknown>, options?: VersionOptions): Promise<DryRunResponse>;
  invoke(id: string, params: Record<string, unknown>, options?: InvokeOptions): Promise<InvokeResponse>;
}

/**
 * A client of one gateway. Every method throws GatewayError for an error answer and ConnectionError when no
 * answer came, after the retries described in the README.
 */
export interface GatewayClient {
  /** GET /health. */
  health(options?: RequestOptions): Promise<HealthResponse>;
  /** GET /llms.txt (plain text). */
  llmsTxt(options?: RequestOptions): Promise<string>;
  /** GET /mcp/manifest. */
  manifest(options?: RequestOptions): Promise<McpManifest>;
  /** GET /mcp/tools. */
  tools(options?: RequestOptions): Promise<McpTools>;
  /** GET /capabilities. */
  capabilities(options?: RequestOptions): Promise<CapabilityCatalog>;
  /** GET /openapi.json (an OpenAPI 3.1 document). */
  openapi(options?: RequestOptions): Promise<Record<string, unknown>>;

  /**
   * POST /register (no credentials). The answer holds the short-lived bootstrap key. A replayed answer
   * (the key was already shown to the first one) throws `RegistrationReplayedError`.
   */
  register(body: RegisterRequest, options?: MutationOptions): Promise<IssuedRegistration>;
  /**
   * POST /organizations with the bootstrap key. Switches this client to the returned installation key,
   * which is shown only in this answer: store it.
   */
  createOrganization(
    body: OrganizationsRequest,
    options: MutationOptions & { bootstrapKey: string },
  ): Promise<OrganizationsResponse>;
  /** POST /owner-otp/claim. */
  claimOwnerOtp(body: OwnerOtpClaimRequest, options?: MutationOptions): Promise<OwnerOtpClaimResponse>;
  /** POST /owner-otp/resend (one fresh code; repeated resends are not a recovery). */
  resendOwnerOtp(options?: MutationOptions): Promise<OwnerOtpResendResponse>;
  /** POST /agent-otp/verify. */
  verifyAgentOtp(body: AgentOtpVerifyRequest, options?: MutationOptions): Promise<AgentOtpVerifyResponse>;
  /** POST /agent-otp/resend. */
  resendAgentOtp(options?: MutationOptions): Promise<AgentOtpResendResponse>;
  /** POST /keys/rotate. Switches this client to the new key, which is shown only in this answer. */
  rotateKey(options?: MutationOptions): Promise<KeysRotateResponse>;
  /** GET /org/current (never sends an idempotency key). */
  currentOrg(options?: RequestOptions): Promise<OrgCurrentResponse>;

  /** POST /mcp/search_capabilities. */
  searchCapabilities(
    request?: SearchCapabilitiesRequest,
    options?: RequestOptions,
  ): Promise<SearchCapabilitiesResponse>;
  /** POST /mcp/describe. */
  describe<Id extends CapabilityId>(
    id: Id,
    options?: VersionOptions,
  ): Promise<TypedCapabilityDescription<Id>>;
  /** POST /mcp/dry_run: validates and simulates, no state change. */
  dryRun<Id extends CapabilityId>(
    id: Id,
    params: CapabilityInput<Id>,
    options?: VersionOptions,
  ): Promise<TypedDryRunResponse<Id>>;
  /**
   * A price quote for exactly these params (beyond the spec): runs dry_run and returns its signed
   * `estimated_cost.quote`; pass it to `invoke(id, params, { quote })` and the run is charged at most
   * `amount_max`. Throws DryRunInvalidError (with the violations, e.g. a budget cap and when it lifts)
   * when the dry run is not valid, QuoteNotIssuedError when it is valid but carries no quote.
   * @example
   * const { quote } = await client.quote('billing.document.pdf', { document_id });
   * const answer = await client.invoke('billing.document.pdf', { document_id }, { quote });
   */
  quote<Id extends CapabilityId>(
    id: Id,
    params: CapabilityInput<Id>,
    options?: VersionOptions,
  ): Promise<CapabilityQuote>;
  /**
   * POST /mcp/invoke. Always sends an `idempotency_key` (generated unless given), the same on every retry,
   * because only describe can tell whether a capability mutates. `quote` is sent as `Agw-Quote`.
   */
  invoke<Id extends CapabilityId>(
    id: Id,
    params: CapabilityInput<Id>,
    options?: InvokeOptions,
  ): Promise<TypedInvokeResponse<Id>>;
  /**
   * GET /mcp/jobs/:id, the job of an `accepted` invoke (`poll.job_id`): `accepted` while it runs, then the
   * final InvokeResponse; a job that failed throws its GatewayError, like the invoke would have.
   */
  getJob(jobId: string, options?: RequestOptions): Promise<InvokeResponse>;
  /** GET the `poll.url` of an `accepted` invoke answer: the invocation's current InvokeResponse. */
  pollInvocation(poll: InvocationPoll, options?: RequestOptions): Promise<InvokeResponse>;
  /**
   * Returns `response` when it is final; for `accepted`, polls `poll.url` (waiting `retry_after_seconds`,
   * default 5 s, between polls) until the status is `succeeded` or `pending_approval`.
   */
  waitForInvocation<T extends InvokeResponse>(response: T, options?: WaitForInvocationOptions): Promise<T>;

  /** Waits for operator approval per the spec's polling rule (see APPROVAL_POLLING). */
  waitForApproval(options?: ApprovalWaitOptions): Promise<OrgCurrentResponse>;
  /** The whole onboarding: register → organization → codes → approval. */
  onboard(options: OnboardOptions): Promise<OnboardResult>;
  /** describe → dry_run → budget check → invoke, refusing to invoke unless the budget allows it. */
  runPaidCapability<Id extends CapabilityId>(
    id: Id,
    params: CapabilityInput<Id>,
    options?: PaidRunOptions,
  ): Promise<PaidRunResult<Id>>;

  /** Untyped describe/dry_run/invoke for capability ids known only at run time. */
  readonly unchecked: UncheckedMetaTools;
  /** Uses `apiKey` for every later call (`undefined`: no credentials). */
  setApiKey(apiKey: string | undefined): void;
}
