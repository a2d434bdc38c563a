import type { OrgCurrentResponse } from '@agw/contracts';
import { ConnectionError, GatewayError } from './errors.js';
import { HandOverToHumanError } from './flow-errors.js';
import type { RequestOptions, SleepLike } from './options.js';
import { isRetryable } from './retry.js';

/**
 * The spec's polling rule (Authentication 9, Limits): the first GET /org/current 30 s after the last
 * onboarding step, then at most one per 60 s, and hand over to a human after 15 minutes.
 */
export const APPROVAL_POLLING = Object.freeze({
  firstPollAfterMs: 30_000,
  minIntervalMs: 60_000,
  giveUpAfterMs: 15 * 60_000,
});

/**
 * What one poll saw: `pending` (200, operator_approval_status `pending`), `precondition_failed` (412; the
 * gateway may answer so until approval), `unavailable` (a retryable error or no connection: the poll is
 * not repeated early, the next one comes at its normal slot).
 */
export type ApprovalPollOutcome = 'pending' | 'precondition_failed' | 'unavailable';

/** Reported after every poll that did not end the wait. */
export interface ApprovalPollEvent {
  type: 'approval_poll';
  /** 1 for the first poll. */
  attempt: number;
  outcome: ApprovalPollOutcome;
  /** Milliseconds since the wait began. */
  elapsedMs: number;
  /** Milliseconds until the next poll, or until the hand-over when no poll fits before it. */
  nextPollInMs: number;
}

/** Options of `waitForApproval`. */
export interface ApprovalWaitOptions {
  signal?: AbortSignal;
  /** Called after each poll that did not end the wait (for a spinner or a log line). */
  onPoll?: (event: ApprovalPollEvent) => void;
  /** Put into a HandOverToHumanError raised before any 200 answer named them. */
  organizationId?: string;
  /** Put into a HandOverToHumanError raised before any 200 answer named them. */
  installationId?: string;
  /**
   * Milliseconds before the first poll; default {@link APPROVAL_POLLING}.firstPollAfterMs (30 s after the
   * last onboarding step). Pass 0 only when resuming a wait whose last step happened in an earlier run:
   * the spec's 30 s are then long past, and an approval that already happened is seen at once.
   */
  firstPollAfterMs?: number;
}

/** @internal What the wait needs from the client. */
export interface ApprovalWaitDeps {
  currentOrg: (options: RequestOptions) => Promise<OrgCurrentResponse>;
  now: () => number;
  sleep: SleepLike;
}

/**
 * Polls GET /org/current per {@link APPROVAL_POLLING} until operator_approval_status is `approved`, and
 * returns that answer. Throws HandOverToHumanError with reason `blocked` or `organization_inactive` at
 * once, and `approval_timeout` at 15 minutes. Each poll is a single try (no SDK retries), so the gateway
 * never sees more than one request per 60 s; errors other than 412 and retryable ones are rethrown.
 * @internal Exposed as `client.waitForApproval`.
 */
export async function waitForApproval(
  deps: ApprovalWaitDeps,
  options: ApprovalWaitOptions = {},
): Promise<OrgCurrentResponse> {
  const { now, signal } = { now: deps.now, signal: options.signal };
  const startedAt = now();
  const deadline = startedAt + APPROVAL_POLLING.giveUpAfterMs;
  const sleepUntil = async (at: number) => {
    const ms = at - now();
    if (ms > 0) await deps.sleep(ms, signal);
  };
  const firstPollAfterMs = options.firstPollAfterMs ?? APPROVAL_POLLING.firstPollAfterMs;
  if (!Number.isFinite(firstPollAfterMs) || firstPollAfterMs < 0) {
    throw new RangeError(`firstPollAfterMs must be a finite number ≥ 0, got ${firstPollAfterMs}`);
  }
  let nextPollAt = startedAt + firstPollAfterMs;
  for (let attempt = 1; ; attempt += 1) {
    await sleepUntil(nextPollAt);
    const polledAt = now();
    const answer = await pollOnce(deps, options);
    if (typeof answer !== 'string') return answer;
    nextPollAt = polledAt + APPROVAL_POLLING.minIntervalMs;
    const giveUp = nextPollAt > deadline;
    options.onPoll?.({
      type: 'approval_poll',
      attempt,
      outcome: answer,
      elapsedMs: polledAt - startedAt,
      nextPollInMs: (giveUp ? deadline : nextPollAt) - now(),
    });
    if (giveUp) {
      await sleepUntil(deadline);
      throw new HandOverToHumanError({
        reason: 'approval_timeout',
        organizationId: options.organizationId,
        installationId: options.installationId,
        waitedMs: now() - startedAt,
      });
    }
  }
}

async function pollOnce(
  deps: ApprovalWaitDeps,
  options: ApprovalWaitOptions,
): Promise<OrgCurrentResponse | ApprovalPollOutcome> {
  const { signal } = options;
  const ids = { organizationId: options.organizationId, installationId: options.installationId };
  let current: OrgCurrentResponse;
  try {
    current = await deps.currentOrg({ maxRetries: 0, ...(signal === undefined ? {} : { signal }) });
  } catch (error) {
    if (GatewayError.isGatewayError(error)) {
      if (error.code === 'precondition_failed') return 'precondition_failed';
      if (error.code === 'installation_blocked')
        throw new HandOverToHumanError({ reason: 'blocked', ...ids, cause: error });
      if (error.code === 'organization_inactive') {
        throw new HandOverToHumanError({ reason: 'organization_inactive', ...ids, cause: error });
      }
    }
    if (ConnectionError.isConnectionError(error) || isRetryable(error)) return 'unavailable';
    throw error;
  }
  const found = { organizationId: current.organization.id, installationId: current.installation.id };
  if (!current.organization.is_active)
    throw new HandOverToHumanError({ reason: 'organization_inactive', ...found });
  switch (current.installation.operator_approval_status) {
    case 'approved':
      return current;
    case 'blocked':
      throw new HandOverToHumanError({ reason: 'blocked', ...found });
    default:
      return 'pending';
  }
}
