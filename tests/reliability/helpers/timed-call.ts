import { parseJsonOrUndefined } from '../../../apps/gateway/test/helpers/http.js';

/** One HTTP answer as a load loop records it: when it started and ended, and what came back. */
export interface TimedAnswer {
  readonly startedAt: number;
  readonly endedAt: number;
  /** 0 when no HTTP answer came (connection refused or reset, or the time bound hit). */
  readonly status: number;
  readonly contentType: string;
  readonly retryAfter: string | null;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read loosely and checked field by field.
  readonly json: any;
  /** The fetch failure (`TimeoutError` when the bound hit), if any. */
  readonly failure?: string;
}

/**
 * POSTs JSON (or GETs when `body` is undefined) with a hard time bound: a call that takes longer than
 * `boundMs` is aborted and comes back as status 0 with `failure: 'TimeoutError'`. Never throws.
 */
export async function timedCall(
  url: string,
  options: { body?: unknown; key?: string; headers?: Record<string, string>; boundMs: number },
): Promise<TimedAnswer> {
  const startedAt = performance.now();
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.Authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  try {
    const response = await fetch(url, {
      method: options.body === undefined ? 'GET' : 'POST',
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(options.boundMs),
    });
    const text = await response.text();
    const json = parseJsonOrUndefined(text);
    return {
      startedAt,
      endedAt: performance.now(),
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      retryAfter: response.headers.get('retry-after'),
      text,
      json,
    };
  } catch (error) {
    const failure =
      error instanceof Error
        ? `${error.name}: ${(error.cause as Error)?.message ?? error.message}`
        : String(error);
    return {
      startedAt,
      endedAt: performance.now(),
      status: 0,
      contentType: '',
      retryAfter: null,
      text: '',
      json: undefined,
      failure,
    };
  }
}

/** True when `answer` is the spec's error envelope with `retryable: true` and a status a client retries. */
export function isRetryableEnvelope(answer: TimedAnswer): boolean {
  const error = answer.json?.error;
  return (
    [503].includes(answer.status) &&
    answer.contentType.startsWith('application/json') &&
    typeof error?.code === 'string' &&
    typeof error?.message === 'string' &&
    typeof error?.audit_id === 'string' &&
    error.retryable === true
  );
}
