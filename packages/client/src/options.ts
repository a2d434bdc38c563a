/** The `fetch` the SDK calls: the global one by default, injectable for tests, proxies or middleware. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Waits `ms` milliseconds; rejects with the signal's reason when it aborts. */
export type SleepLike = (ms: number, signal?: AbortSignal) => Promise<void>;

/** One line of the optional debug log. Secret headers and body fields are already `[redacted]`. */
export interface DebugEvent {
  /** `response`: an HTTP answer arrived; `retry`: the SDK waits `delayMs` and tries again; `failure`: no answer. */
  type: 'response' | 'retry' | 'failure';
  method: string;
  /** Path relative to the base URL. */
  path: string;
  /** 1 for the first try of a logical call. */
  attempt: number;
  status?: number;
  durationMs?: number;
  /** `X-Request-Id` of the response. */
  requestId?: string;
  /** Error code of an error answer, or `network`/`timeout`. */
  errorCode?: string;
  /** True when the gateway replayed a stored answer (`Idempotent-Replayed: true`). */
  replayed?: boolean;
  /** Delay before the next try (type `retry`). */
  delayMs?: number;
  /** Request headers, `Authorization` redacted. */
  headers?: Record<string, string>;
  /** Request body with `otp`, `token` and other secret fields redacted. */
  body?: unknown;
}

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** Base address of the gateway, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  baseUrl: string;
  /** Installation key (`Authorization: Bearer`); switch it later with `setApiKey`. */
  apiKey?: string;
  /** `fetch` implementation; defaults to `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Retries after the first try, for retryable errors only. Default 2. */
  maxRetries?: number;
  /** Per-try timeout in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Longest server-requested wait (`Retry-After`) the SDK sleeps through before retrying. Default 60. */
  maxRetryAfterSeconds?: number;
  /** Clock in milliseconds; injectable for tests. Default `Date.now`. */
  now?: () => number;
  /** Sleep; injectable for tests (the approval wait sleeps up to 15 minutes). */
  sleep?: SleepLike;
  /** Random number in [0, 1) for backoff jitter; injectable for tests. Default `Math.random`. */
  random?: () => number;
  /** Sent as `User-Agent` when set (browsers may ignore it). */
  userAgent?: string;
  /** Receives one event per response, retry and connection failure; never sees a secret. */
  debug?: (event: DebugEvent) => void;
}

/** Per-call overrides, accepted by every method. */
export interface RequestOptions {
  /** Aborts the call, including its retries and backoff sleeps. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

/** Per-call options of a mutation. */
export interface MutationOptions extends RequestOptions {
  /** Your own idempotency key (16–128 visible ASCII characters); a UUID v4 is generated otherwise. */
  idempotencyKey?: string;
}

/** The default {@link SleepLike}: a timer that an abort signal cancels. */
export const defaultSleep: SleepLike = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A fresh idempotency key: a UUID v4 (36 characters, within the spec's 16–128). */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}
