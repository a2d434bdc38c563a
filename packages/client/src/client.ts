import type {
  InvokeRequest,
  InvokeResponse,
  KeysRotateResponse,
  OrganizationsResponse,
  RegisterResponse,
} from '@agw/contracts';
import { waitForApproval } from './approval.js';
import type { GatewayClient, IssuedRegistration, UncheckedMetaTools } from './client-types.js';
import { QuoteNotIssuedError, RegistrationReplayedError } from './flow-errors.js';
import { waitForInvocation } from './invocation.js';
import { onboard } from './onboard.js';
import {
  type ClientOptions,
  defaultSleep,
  type MutationOptions,
  newIdempotencyKey,
  type RequestOptions,
} from './options.js';
import { requireValidDryRun, runPaidCapability } from './paid.js';
import { type RequestSpec, send, type TransportConfig } from './transport.js';
import type { InvocationPoll, InvokeOptions, VersionOptions } from './typed.js';

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRY_AFTER_SECONDS = 60;

/**
 * Creates a client of the gateway at `baseUrl`. The API key lives in a closure, never on the object, so
 * logging or inspecting the client cannot reveal it.
 * @example
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.AGW_KEY });
 * const found = await client.searchCapabilities({ query: 'invoice' });
 */
export function createClient(options: ClientOptions): GatewayClient {
  if (!/^https?:\/\//i.test(options.baseUrl)) {
    throw new TypeError('createClient: baseUrl must be an http(s) URL');
  }
  let apiKey = options.apiKey;
  const config: TransportConfig = {
    baseUrl: options.baseUrl,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    userAgent: options.userAgent,
    debug: options.debug,
    getApiKey: () => apiKey,
  };
  const request = <T>(spec: RequestSpec) => send<T>(config, spec);
  const get = <T>(path: string, call: RequestOptions | undefined, auth: RequestSpec['auth'] = 'client') =>
    request<T>({ method: 'GET', path, auth, options: call });
  // Access-endpoint mutations: one Idempotency-Key per logical call, kept across retries by `send`.
  const mutate = <T>(
    path: string,
    body: unknown,
    call: MutationOptions | undefined,
    extra: Partial<RequestSpec> = {},
  ) =>
    request<T>({
      method: 'POST',
      path,
      body,
      auth: 'client',
      idempotencyKey: call?.idempotencyKey ?? newIdempotencyKey(),
      options: call,
      ...extra,
    });
  const metaTool = <T>(path: string, body: unknown, call: RequestOptions | undefined) =>
    request<T>({ method: 'POST', path, body, auth: 'client', options: call });

  const unchecked: UncheckedMetaTools = {
    describe: (id, call?: VersionOptions) => metaTool('/mcp/describe', withVersion({ id }, call), call),
    dryRun: (id, params, call?: VersionOptions) =>
      metaTool('/mcp/dry_run', withVersion({ id, params }, call), call),
    invoke: (id, params, call?: InvokeOptions) => {
      const body: InvokeRequest = {
        ...withVersion({ id, params }, call),
        idempotency_key: call?.idempotencyKey ?? newIdempotencyKey(),
        ...(call?.approvalToken === undefined ? {} : { approval_token: call.approvalToken }),
      };
      const secrets = call?.approvalToken === undefined ? [] : [call.approvalToken];
      const answer = request<InvokeResponse>({
        method: 'POST',
        path: '/mcp/invoke',
        body,
        auth: 'client',
        secrets,
        options: call,
        ...(call?.quote === undefined ? {} : { headers: { 'Agw-Quote': call.quote } }),
      });
      if (!call?.waitForJob) return answer;
      const bound = call.waitForJob === true ? {} : call.waitForJob;
      const { signal } = call;
      return answer.then((first) =>
        client.waitForInvocation(first, { ...bound, ...(signal === undefined ? {} : { signal }) }),
      );
    },
  };

  const client: GatewayClient = {
    health: (call) => get('/health', call, 'none'),
    llmsTxt: (call) =>
      request({ method: 'GET', path: '/llms.txt', auth: 'none', responseType: 'text', options: call }),
    manifest: (call) => get('/mcp/manifest', call, 'none'),
    tools: (call) => get('/mcp/tools', call, 'none'),
    capabilities: (call) => get('/capabilities', call, 'none'),
    openapi: (call) => get('/openapi.json', call, 'none'),

    register: async (body, call) => {
      const registered = await mutate<RegisterResponse>('/register', body, call, { auth: 'none' });
      // A replay (e.g. this SDK's own retry after a lost answer) carries no bootstrap key.
      if (registered.bootstrap_key === null) {
        throw new RegistrationReplayedError({
          appId: registered.app.id,
          appSlug: registered.app.slug,
          hint: registered.hint,
        });
      }
      return registered as IssuedRegistration;
    },
    createOrganization: async (body, call) => {
      const { bootstrapKey, ...rest } = call;
      const created = await mutate<OrganizationsResponse>('/organizations', body, rest, {
        auth: { bearer: bootstrapKey },
      });
      apiKey = created.installation_key.token;
      return created;
    },
    claimOwnerOtp: (body, call) => mutate('/owner-otp/claim', body, call, { secrets: [body.otp] }),
    resendOwnerOtp: (call) => mutate('/owner-otp/resend', {}, call),
    verifyAgentOtp: (body, call) => mutate('/agent-otp/verify', body, call, { secrets: [body.otp] }),
    resendAgentOtp: (call) => mutate('/agent-otp/resend', {}, call),
    rotateKey: async (call) => {
      const rotated = await mutate<KeysRotateResponse>('/keys/rotate', {}, call);
      apiKey = rotated.key.token;
      return rotated;
    },
    currentOrg: (call) => get('/org/current', call),

    searchCapabilities: (body, call) => metaTool('/mcp/search_capabilities', body ?? {}, call),
    // The typed meta-tools are the unchecked ones plus the contracts' types for a known id: the casts are
    // where the SDK declares that trust (the gateway validates params and result against the same schemas).
    describe: (id, call) => unchecked.describe(id, call) as never,
    dryRun: (id, params, call) => unchecked.dryRun(id, params as Record<string, unknown>, call) as never,
    invoke: (id, params, call) => unchecked.invoke(id, params as Record<string, unknown>, call) as never,
    quote: async (id, params, call) => {
      const dry = await unchecked.dryRun(id, params as Record<string, unknown>, call);
      requireValidDryRun(id, dry);
      const quote = dry.estimated_cost?.quote;
      if (typeof quote !== 'string')
        throw new QuoteNotIssuedError({ capabilityId: id, auditId: dry.audit_id });
      return {
        quote,
        expires_at: String(dry.estimated_cost?.quote_expires_at),
        amount_max: Number(dry.estimated_cost?.amount_max),
        audit_id: dry.audit_id,
      };
    },
    getJob: (jobId, call) => get(`/mcp/jobs/${encodeURIComponent(jobId)}`, call),
    pollInvocation: async (poll: InvocationPoll, call) => get(relativePollPath(poll), call),
    waitForInvocation: (response, call) =>
      waitForInvocation({ client, now: config.now, sleep: config.sleep }, response, call),

    waitForApproval: (call) =>
      waitForApproval({ currentOrg: client.currentOrg, now: config.now, sleep: config.sleep }, call),
    onboard: (onboardOptions) => onboard(client, onboardOptions),
    runPaidCapability: (id, params, call) => runPaidCapability(client, id, params, call),

    unchecked,
    setApiKey: (key) => {
      apiKey = key;
    },
  };
  return client;
}

function withVersion<T extends object>(body: T, call: VersionOptions | undefined): T & { version?: string } {
  return call?.version === undefined ? body : { ...body, version: call.version };
}

/**
 * The poll URL must be a path on this gateway: the SDK sends the installation key with it, so an absolute
 * or protocol-relative URL (another host) is refused.
 */
function relativePollPath(poll: InvocationPoll): string {
  const url = poll?.url;
  if (typeof url !== 'string' || !url.startsWith('/') || url.startsWith('//') || /[\s\\]/.test(url)) {
    throw new TypeError('poll.url must be a path relative to the gateway base URL');
  }
  return url;
}
