import type { InvokeResponse } from '@agw/contracts';
import type { GatewayClient, WaitForInvocationOptions } from './client-types.js';
import { InvocationTimeoutError } from './flow-errors.js';
import type { SleepLike } from './options.js';
import type { InvocationPoll } from './typed.js';

/** Wait between polls of an `accepted` invocation when the gateway names none. */
export const DEFAULT_INVOCATION_POLL_SECONDS = 5;
const DEFAULT_MAX_WAIT_MS = 15 * 60_000;

/** Reads the `poll` object of an `accepted` answer (free-form in the spec; our shape is InvocationPoll). */
export function readPoll(response: InvokeResponse): InvocationPoll {
  const poll = response.poll as Partial<InvocationPoll> | undefined;
  if (typeof poll?.url !== 'string') {
    throw new TypeError(`Invocation ${response.audit_id} is accepted but carries no poll.url`);
  }
  const seconds = poll.retry_after_seconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0
    ? { url: poll.url, retry_after_seconds: seconds }
    : { url: poll.url };
}

/**
 * Polls an `accepted` invocation until it is final, honouring each answer's `poll.retry_after_seconds`.
 * @internal Exposed as `client.waitForInvocation`.
 */
export async function waitForInvocation<T extends InvokeResponse>(
  deps: { client: GatewayClient; now: () => number; sleep: SleepLike },
  response: T,
  options: WaitForInvocationOptions = {},
): Promise<T> {
  const { maxWaitMs = DEFAULT_MAX_WAIT_MS, ...call } = options;
  const startedAt = deps.now();
  let current: InvokeResponse = response;
  while (current.status === 'accepted') {
    const poll = readPoll(current);
    const delayMs = (poll.retry_after_seconds ?? DEFAULT_INVOCATION_POLL_SECONDS) * 1000;
    const waitedMs = deps.now() - startedAt;
    if (waitedMs + delayMs > maxWaitMs) {
      throw new InvocationTimeoutError({ auditId: current.audit_id, poll, waitedMs });
    }
    await deps.sleep(delayMs, call.signal);
    current = await deps.client.pollInvocation(poll, call);
  }
  return current as T;
}
