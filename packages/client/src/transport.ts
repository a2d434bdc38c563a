import { ConnectionError, GatewayError } from './errors.js';
import type { DebugEvent, FetchLike, RequestOptions, SleepLike } from './options.js';
import { REDACTED, redactText, redactValue } from './redact.js';
import { isRetryable, isRetryableStatusWithoutEnvelope, parseRetryAfter, retryDelayMs } from './retry.js';

/** The resolved client settings one request needs. */
export interface TransportConfig {
  baseUrl: string;
  fetch: FetchLike;
  maxRetries: number;
  timeoutMs: number;
  maxRetryAfterSeconds: number;
  now: () => number;
  sleep: SleepLike;
  random: () => number;
  userAgent: string | undefined;
  debug: ((event: DebugEvent) => void) | undefined;
  /** The client's current key; read per call so `setApiKey` takes effect at once. */
  getApiKey: () => string | undefined;
}

/** One logical call: every retry sends exactly this request again. */
export interface RequestSpec {
  method: 'GET' | 'POST';
  /** Path relative to the base URL, starting with `/`. */
  path: string;
  body?: unknown;
  /** `client`: the client's key when it has one; `none`: no credentials; `{ bearer }`: this key. */
  auth: 'client' | 'none' | { bearer: string };
  /** Sent as `Idempotency-Key`; fixed for the whole logical call. */
  idempotencyKey?: string;
  /** `text` for /llms.txt; JSON otherwise. */
  responseType?: 'json' | 'text';
  /** Values to scrub from errors and debug output besides keys (e.g. the submitted code). */
  secrets?: readonly string[];
  /** Further request headers (e.g. an invoke's `Agw-Quote`). */
  headers?: Readonly<Record<string, string>>;
  options?: RequestOptions | undefined;
}

/**
 * Sends one logical call, retrying retryable failures (see `isRetryable`) up to `maxRetries` times with
 * the same headers and body, hence the same idempotency key. Backoff: `retryDelayMs`.
 */
export async function send<T>(config: TransportConfig, spec: RequestSpec): Promise<T> {
  const maxRetries = spec.options?.maxRetries ?? config.maxRetries;
  const signal = spec.options?.signal;
  const bearer =
    spec.auth === 'none' ? undefined : spec.auth === 'client' ? config.getApiKey() : spec.auth.bearer;
  const secrets = [...(bearer === undefined ? [] : [bearer]), ...(spec.secrets ?? [])];
  const headers = requestHeaders(config, spec, bearer);
  for (let attempt = 1; ; attempt += 1) {
    signal?.throwIfAborted();
    try {
      return (await attemptOnce(config, spec, { headers, secrets, attempt })) as T;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const retryIndex = attempt - 1;
      if (retryIndex >= maxRetries || !isRetryable(error)) throw error;
      const delayMs = retryDelayMs(error, retryIndex, config);
      if (delayMs === undefined) throw error;
      config.debug?.({ type: 'retry', method: spec.method, path: spec.path, attempt, delayMs });
      await config.sleep(delayMs, signal);
    }
  }
}

function requestHeaders(config: TransportConfig, spec: RequestSpec, bearer: string | undefined) {
  const headers: Record<string, string> = {
    Accept: spec.responseType === 'text' ? 'text/plain, application/json' : 'application/json',
  };
  if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
  if (bearer !== undefined) headers.Authorization = `Bearer ${bearer}`;
  if (spec.idempotencyKey !== undefined) headers['Idempotency-Key'] = spec.idempotencyKey;
  if (config.userAgent !== undefined) headers['User-Agent'] = config.userAgent;
  return spec.headers === undefined ? headers : { ...headers, ...spec.headers };
}

interface Attempt {
  headers: Record<string, string>;
  secrets: readonly string[];
  attempt: number;
}

async function attemptOnce(config: TransportConfig, spec: RequestSpec, attempt: Attempt): Promise<unknown> {
  const { method, path } = spec;
  const userSignal = spec.options?.signal;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, spec.options?.timeoutMs ?? config.timeoutMs);
  const onUserAbort = () => controller.abort(userSignal?.reason);
  userSignal?.addEventListener('abort', onUserAbort, { once: true });
  const startedAt = config.now();
  const debugBase = () => ({
    method,
    path,
    attempt: attempt.attempt,
    durationMs: config.now() - startedAt,
    headers: { ...attempt.headers, ...(attempt.headers.Authorization ? { Authorization: REDACTED } : {}) },
    ...(spec.body === undefined ? {} : { body: redactValue(spec.body, attempt.secrets) }),
  });
  let response: Response;
  let text: string;
  try {
    response = await config.fetch(joinUrl(config.baseUrl, path), {
      method,
      headers: attempt.headers,
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
      signal: controller.signal,
    });
    text = await response.text();
  } catch (cause) {
    if (userSignal?.aborted) throw userSignal.reason;
    const reason = timedOut ? 'timeout' : 'network';
    config.debug?.({ type: 'failure', ...debugBase(), errorCode: reason });
    throw new ConnectionError({ reason, method, path, cause });
  } finally {
    clearTimeout(timer);
    userSignal?.removeEventListener('abort', onUserAbort);
  }
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const error = response.ok
    ? undefined
    : errorFromResponse(response, text, {
        method,
        path,
        requestId,
        secrets: attempt.secrets,
        now: config.now(),
      });
  config.debug?.({
    type: 'response',
    ...debugBase(),
    status: response.status,
    ...(requestId === undefined ? {} : { requestId }),
    ...(response.headers.get('idempotent-replayed') === 'true' ? { replayed: true } : {}),
    ...(error === undefined ? {} : { errorCode: error.code }),
  });
  if (error !== undefined) throw error;
  if (spec.responseType === 'text') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw unexpected(response, { method, path, requestId, now: config.now() }, 'a body that is not JSON');
  }
}

/** `baseUrl` + `path`, keeping a path prefix of the base and avoiding a double slash. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

interface ErrorContext {
  method: string;
  path: string;
  requestId: string | undefined;
  now: number;
}

/** Maps an error answer to a GatewayError, scrubbing secrets from every text the gateway sent back. */
function errorFromResponse(
  response: Response,
  text: string,
  context: ErrorContext & { secrets: readonly string[] },
): GatewayError {
  const envelope = readEnvelope(text);
  if (envelope === undefined) return unexpected(response, context, 'a body that is not the error envelope');
  const scrub = (value: string | undefined) =>
    value === undefined ? undefined : redactText(value, context.secrets);
  const retryAfterSeconds =
    typeof envelope.retry_after_seconds === 'number'
      ? envelope.retry_after_seconds
      : parseRetryAfter(response.headers.get('retry-after'), context.now);
  return new GatewayError({
    code: envelope.code,
    message: scrub(envelope.message) ?? envelope.code,
    status: response.status,
    retryable: envelope.retryable === true,
    auditId: typeof envelope.audit_id === 'string' ? envelope.audit_id : undefined,
    hint: scrub(typeof envelope.hint === 'string' ? envelope.hint : undefined),
    details: Array.isArray(envelope.details)
      ? (redactValue(envelope.details, context.secrets) as Record<string, unknown>[])
      : undefined,
    retryAfterSeconds,
    schemaPointer: typeof envelope.schema_pointer === 'string' ? envelope.schema_pointer : undefined,
    docUrl: typeof envelope.doc_url === 'string' ? envelope.doc_url : undefined,
    requestId: context.requestId,
    method: context.method,
    path: context.path,
  });
}

interface LooseEnvelope {
  code: string;
  message: string;
  retryable?: unknown;
  audit_id?: unknown;
  hint?: unknown;
  retry_after_seconds?: unknown;
  schema_pointer?: unknown;
  details?: unknown;
  doc_url?: unknown;
}

function readEnvelope(text: string): LooseEnvelope | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const inner = (parsed as { error?: unknown } | null)?.error as Partial<LooseEnvelope> | undefined;
  if (typeof inner !== 'object' || inner === null) return undefined;
  if (typeof inner.code !== 'string' || typeof inner.message !== 'string') return undefined;
  return inner as LooseEnvelope;
}

/** An answer that is not the gateway's (a proxy page, an empty or non-JSON body); its text is not kept. */
function unexpected(response: Response, context: ErrorContext, what: string): GatewayError {
  const contentType = response.headers.get('content-type') ?? 'no content type';
  return new GatewayError({
    code: 'unexpected_response',
    message: `HTTP ${response.status} from ${context.method} ${context.path} with ${what} (${contentType})`,
    status: response.status,
    retryable: !response.ok && isRetryableStatusWithoutEnvelope(response.status),
    retryAfterSeconds: response.ok
      ? undefined
      : parseRetryAfter(response.headers.get('retry-after'), context.now),
    requestId: context.requestId,
    method: context.method,
    path: context.path,
  });
}
