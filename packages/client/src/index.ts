/**
 * @agw/client — the typed SDK of the Agent Gateway: every endpoint, invoke typed per capability id,
 * idempotency keys and retries, the onboarding flow with the spec's polling rule, and the paid sequence.
 * Runtime needs: `fetch` and `crypto.randomUUID` (Node 20+, browsers). The IMAP code reader lives in
 * `@agw/client/imap`.
 */

export type { ApprovalPollEvent, ApprovalPollOutcome, ApprovalWaitOptions } from './approval.js';
export { APPROVAL_POLLING } from './approval.js';
export { createClient } from './client.js';
export type {
  GatewayClient,
  IssuedRegistration,
  UncheckedMetaTools,
  WaitForInvocationOptions,
} from './client-types.js';
export type { ConnectionFailure, GatewayErrorCode, GatewayErrorInit } from './errors.js';
export { ConnectionError, GatewayError } from './errors.js';
export type { HandOverReason } from './flow-errors.js';
export {
  BudgetDeniedError,
  DryRunInvalidError,
  HandOverToHumanError,
  InvocationTimeoutError,
  QuoteNotIssuedError,
  RegistrationReplayedError,
} from './flow-errors.js';
export { DEFAULT_INVOCATION_POLL_SECONDS } from './invocation.js';
export type { OnboardEvent, OnboardOptions, OnboardResult, OwnerOtpRequest } from './onboard.js';
export type {
  ClientOptions,
  DebugEvent,
  FetchLike,
  MutationOptions,
  RequestOptions,
  SleepLike,
} from './options.js';
export { newIdempotencyKey } from './options.js';
export type { BudgetWindow, PaidRunOptions, PaidRunResult } from './paid.js';
export type {
  CapabilityInput,
  CapabilityOutput,
  CapabilityQuote,
  InvocationPoll,
  InvokeOptions,
  TypedCapabilityDescription,
  TypedDryRunResponse,
  TypedInvokeResponse,
  VersionOptions,
} from './typed.js';
