import {
  type DebugEvent,
  defaultSleep,
  type FetchLike,
  type MutationOptions,
  type RequestOptions,
} from '../options.js';
import { type RequestSpec, send, type TransportConfig } from '../transport.js';
import type {
  AccessInvite,
  AccessMode,
  AccessModeChange,
  AdminInstallation,
  ApprovalStatus,
  AuditChainAnchor,
  AuditChainVerification,
  AuditEventFilter,
  AuditEventPage,
  BudgetPolicy,
  BudgetPolicyChange,
  BudgetPolicyPatch,
  CreatedOperatorKey,
  InstallationDecision,
  InviteResult,
  MailSuppression,
  OperatorKey,
  OrganizationChange,
  OrganizationPage,
  RunApproval,
  RunApprovalDecision,
  RunApprovalDetail,
  RunApprovalStatus,
  SuppressResult,
  UnsuppressResult,
  Wallet,
  WalletCredit,
  WalletPage,
} from './types.js';

/** Options of {@link createAdminClient}. */
export interface AdminClientOptions {
  /** Base address of the gateway, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An operator key (`agw_ak_…` of kind operator); kept in a closure, never on the client object. */
  operatorKey: string;
  /** `fetch` implementation; defaults to `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Retries after the first try, for retryable errors only (never for createOperatorKey). Default 2. */
  maxRetries?: number;
  /** Per-try timeout in milliseconds. Default 30 000. */
  timeoutMs?: number;
  /** Sent as `User-Agent` when set. */
  userAgent?: string;
  /** Receives one event per response, retry and failure; the key is already redacted. */
  debug?: (event: DebugEvent) => void;
}

/** A typed client of the operator admin API; every method throws `GatewayError` on an error answer. */
export interface AdminClient {
  /** POST /admin/operator-keys: a new operator key; its token is shown only in this answer. */
  createOperatorKey(input?: { label?: string }, options?: RequestOptions): Promise<CreatedOperatorKey>;
  /** GET /admin/operator-keys: every operator key, newest first. */
  listOperatorKeys(options?: RequestOptions): Promise<OperatorKey[]>;
  /** POST /admin/operator-keys/{prefix}/revoke (409 `conflict` for the last active key). */
  revokeOperatorKey(prefix: string, options?: RequestOptions): Promise<OperatorKey>;
  /** GET /admin/installations: oldest first, optionally one approval state only. */
  listInstallations(
    filter?: { status?: ApprovalStatus; limit?: number },
    options?: RequestOptions,
  ): Promise<AdminInstallation[]>;
  /** GET /admin/installations/{id}. */
  getInstallation(id: string, options?: RequestOptions): Promise<AdminInstallation>;
  /** POST /admin/installations/{id}/approve (409 `conflict` while a code is unredeemed). */
  approveInstallation(id: string, options?: RequestOptions): Promise<InstallationDecision>;
  /** POST /admin/installations/{id}/block. */
  blockInstallation(id: string, options?: RequestOptions): Promise<InstallationDecision>;
  /** POST /admin/organizations/{id}/activate. */
  activateOrganization(id: string, options?: RequestOptions): Promise<OrganizationChange>;
  /** POST /admin/organizations/{id}/deactivate. */
  deactivateOrganization(id: string, options?: RequestOptions): Promise<OrganizationChange>;
  /** GET /admin/access: the registration mode. */
  getAccessMode(options?: RequestOptions): Promise<AccessMode>;
  /** POST /admin/access: sets the registration mode. */
  setAccessMode(mode: AccessMode, options?: RequestOptions): Promise<AccessModeChange>;
  /** POST /admin/access/invites: invites an owner email (a repeat keeps the first invitation). */
  invite(email: string, options?: RequestOptions): Promise<InviteResult>;
  /** GET /admin/access/invites. */
  listInvites(options?: RequestOptions): Promise<AccessInvite[]>;
  /** GET /admin/mail-suppressions. */
  listMailSuppressions(options?: RequestOptions): Promise<MailSuppression[]>;
  /** POST /admin/mail-suppressions: the gateway stops mailing this address. */
  suppressMail(email: string, reason?: string, options?: RequestOptions): Promise<SuppressResult>;
  /** POST /admin/mail-suppressions/remove. */
  unsuppressMail(email: string, options?: RequestOptions): Promise<UnsuppressResult>;
  /** GET /admin/approvals: run approvals, oldest first; `status` defaults to `pending` (`all` for every state). */
  listApprovals(
    filter?: { status?: RunApprovalStatus | 'all'; organization?: string; limit?: number },
    options?: RequestOptions,
  ): Promise<RunApproval[]>;
  /** GET /admin/approvals/{id}. */
  getApproval(id: string, options?: RequestOptions): Promise<RunApprovalDetail>;
  /** POST /admin/approvals/{id}/approve (409 when denied or expired). */
  approveApproval(id: string, options?: RequestOptions): Promise<RunApprovalDecision>;
  /** POST /admin/approvals/{id}/deny, with an optional reason for the audit log (409 when approved). */
  denyApproval(id: string, reason?: string, options?: RequestOptions): Promise<RunApprovalDecision>;
  /** GET /admin/organizations: organizations by name with their wallets, a page at a time (limit ≤ 500). */
  listOrganizations(
    page?: { limit?: number; cursor?: string },
    options?: RequestOptions,
  ): Promise<OrganizationPage>;
  /** GET /admin/wallets: every organization's wallet by organization name, a page at a time. */
  listWallets(page?: { limit?: number; cursor?: string }, options?: RequestOptions): Promise<WalletPage>;
  /** GET /admin/wallets/{organizationId}. */
  getWallet(organizationId: string, options?: RequestOptions): Promise<Wallet>;
  /**
   * POST /admin/wallets/{organizationId}/credit with an exact decimal string. Sends one
   * Idempotency-Key per call (kept across retries, or `options.idempotencyKey`), so a retry never pays twice.
   */
  creditWallet(
    organizationId: string,
    input: { amount: string; memo?: string },
    options?: MutationOptions,
  ): Promise<WalletCredit>;
  /** GET /admin/policies/{organizationId}. */
  getPolicy(organizationId: string, options?: RequestOptions): Promise<BudgetPolicy>;
  /** POST /admin/policies/{organizationId} (the same as PATCH): only the fields given change. */
  setPolicy(
    organizationId: string,
    patch: BudgetPolicyPatch,
    options?: RequestOptions,
  ): Promise<BudgetPolicyChange>;
  /** GET /admin/audit: one page of audit rows, newest first; follow `next_cursor` for older ones. */
  listAuditEvents(filter?: AuditEventFilter, options?: RequestOptions): Promise<AuditEventPage>;
  /**
   * GET /admin/audit/verify: recomputes the audit hash chain. Tampering is an answer (`ok: false`,
   * `first_bad`), not an error. With an anchor, also checks the chain still holds that head.
   */
  verifyAuditLog(anchor?: AuditChainAnchor, options?: RequestOptions): Promise<AuditChainVerification>;
}

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_RETRY_AFTER_SECONDS = 60;

/**
 * Creates a client of the gateway's operator admin API. It shares the SDK's transport: the same
 * retries (retryable errors only, backoff with jitter, `Retry-After`), `GatewayError`/`ConnectionError`
 * and redaction, so the operator key never appears in errors or debug output.
 * @example
 * const admin = createAdminClient({ baseUrl: 'http://127.0.0.1:8080', operatorKey: process.env.AGW_OPERATOR_KEY! });
 * for (const installation of await admin.listInstallations({ status: 'pending' })) console.log(installation.id);
 */
export function createAdminClient(options: AdminClientOptions): AdminClient {
  if (!/^https?:\/\//i.test(options.baseUrl)) {
    throw new TypeError('createAdminClient: baseUrl must be an http(s) URL');
  }
  if (typeof options.operatorKey !== 'string' || options.operatorKey === '') {
    throw new TypeError('createAdminClient: operatorKey is required');
  }
  const operatorKey = options.operatorKey;
  const config: TransportConfig = {
    baseUrl: options.baseUrl,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetryAfterSeconds: MAX_RETRY_AFTER_SECONDS,
    now: Date.now,
    sleep: defaultSleep,
    random: Math.random,
    userAgent: options.userAgent,
    debug: options.debug,
    getApiKey: () => operatorKey,
  };
  const request = <T>(spec: Omit<RequestSpec, 'auth'>) => send<T>(config, { ...spec, auth: 'client' });
  const get = <T>(path: string, call: RequestOptions | undefined) =>
    request<T>({ method: 'GET', path, options: call });
  // Admin mutations are state sets (see the gateway README): a retry repeats the same state change.
  const post = <T>(path: string, body: unknown, call: RequestOptions | undefined) =>
    request<T>({ method: 'POST', path, body, options: call });
  const segment = (value: string) => encodeURIComponent(value);

  return {
    createOperatorKey: (input, call) =>
      // Not a state set: a retry after a lost answer would mint a second key, so never retry it.
      post('/admin/operator-keys', input ?? {}, { ...call, maxRetries: 0 }),
    listOperatorKeys: async (call) =>
      (await get<{ operator_keys: OperatorKey[] }>('/admin/operator-keys', call)).operator_keys,
    revokeOperatorKey: async (prefix, call) =>
      (await post<{ key: OperatorKey }>(`/admin/operator-keys/${segment(prefix)}/revoke`, {}, call)).key,
    listInstallations: async (filter, call) =>
      (
        await get<{ installations: AdminInstallation[] }>(
          withQuery('/admin/installations', { status: filter?.status, limit: filter?.limit }),
          call,
        )
      ).installations,
    getInstallation: async (id, call) =>
      (await get<{ installation: AdminInstallation }>(`/admin/installations/${segment(id)}`, call))
        .installation,
    approveInstallation: (id, call) => post(`/admin/installations/${segment(id)}/approve`, {}, call),
    blockInstallation: (id, call) => post(`/admin/installations/${segment(id)}/block`, {}, call),
    activateOrganization: (id, call) => post(`/admin/organizations/${segment(id)}/activate`, {}, call),
    deactivateOrganization: (id, call) => post(`/admin/organizations/${segment(id)}/deactivate`, {}, call),
    getAccessMode: async (call) => (await get<{ mode: AccessMode }>('/admin/access', call)).mode,
    setAccessMode: (mode, call) => post('/admin/access', { mode }, call),
    invite: (email, call) => post('/admin/access/invites', { email }, call),
    listInvites: async (call) =>
      (await get<{ invites: AccessInvite[] }>('/admin/access/invites', call)).invites,
    listMailSuppressions: async (call) =>
      (await get<{ suppressions: MailSuppression[] }>('/admin/mail-suppressions', call)).suppressions,
    suppressMail: (email, reason, call) =>
      post('/admin/mail-suppressions', reason === undefined ? { email } : { email, reason }, call),
    unsuppressMail: (email, call) => post('/admin/mail-suppressions/remove', { email }, call),
    listApprovals: async (filter, call) => {
      const query = { status: filter?.status, organization: filter?.organization, limit: filter?.limit };
      return (await get<{ approvals: RunApproval[] }>(withQuery('/admin/approvals', query), call)).approvals;
    },
    getApproval: async (id, call) =>
      (await get<{ approval: RunApprovalDetail }>(`/admin/approvals/${segment(id)}`, call)).approval,
    approveApproval: (id, call) => post(`/admin/approvals/${segment(id)}/approve`, {}, call),
    denyApproval: (id, reason, call) =>
      post(`/admin/approvals/${segment(id)}/deny`, reason === undefined ? {} : { reason }, call),
    listOrganizations: (page, call) => get<OrganizationPage>(withQuery('/admin/organizations', page), call),
    listWallets: (page, call) => get<WalletPage>(withQuery('/admin/wallets', page), call),
    getWallet: async (organizationId, call) =>
      (await get<{ wallet: Wallet }>(`/admin/wallets/${segment(organizationId)}`, call)).wallet,
    creditWallet: (organizationId, input, call) => {
      const { idempotencyKey, ...rest } = call ?? {};
      // Not a state set: the key makes the gateway replay a retried credit instead of paying twice.
      return request<WalletCredit>({
        method: 'POST',
        path: `/admin/wallets/${segment(organizationId)}/credit`,
        body: input,
        idempotencyKey: idempotencyKey ?? `credit-${globalThis.crypto.randomUUID()}`,
        options: rest,
      });
    },
    getPolicy: async (organizationId, call) =>
      (await get<{ policy: BudgetPolicy }>(`/admin/policies/${segment(organizationId)}`, call)).policy,
    setPolicy: (organizationId, patch, call) =>
      post(`/admin/policies/${segment(organizationId)}`, patch, call),
    listAuditEvents: (filter, call) => get<AuditEventPage>(withQuery('/admin/audit', filter), call),
    verifyAuditLog: (anchor, call) =>
      get<AuditChainVerification>(
        withQuery('/admin/audit/verify', { anchor_seq: anchor?.seq, anchor_hash: anchor?.hash }),
        call,
      ),
  };
}

/**
 * `path` with the given parameters (strings and numbers) as its query string; undefined ones are left
 * out, and with none there is no `?`.
 */
function withQuery(path: string, params: object | undefined): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params ?? {})) {
    if (value !== undefined) query.set(name, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}
