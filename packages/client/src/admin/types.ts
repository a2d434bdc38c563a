/**
 * Wire types of the gateway's operator admin API (`/admin/*`). The admin API is not part of the public
 * agent interface (it is in no discovery document), so these types live with the admin client rather
 * than in @agw/contracts. Timestamps are ISO 8601 strings.
 */

/** An operator key as listed: never its secret. */
export interface OperatorKey {
  id: string;
  prefix: string;
  label: string | null;
  status: 'active' | 'revoked' | 'expired';
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Answer of `createOperatorKey`: `token` is the key's only plaintext appearance. */
export interface CreatedOperatorKey {
  key: OperatorKey;
  token: string;
  audit_id: string;
}

/** The operator's approval state of an installation. */
export type ApprovalStatus = 'pending' | 'approved' | 'blocked';

/** An installation as the operator sees it. */
export interface AdminInstallation {
  id: string;
  operator_approval_status: ApprovalStatus;
  organization: { id: string; name: string; short_id: string; is_active: boolean };
  app: { id: string; slug: string; name: string };
  owner_email: string;
  owner_verified: boolean;
  owner_verified_at: string | null;
  agent_email: string | null;
  agent_email_verification_status: 'not_required' | 'pending' | 'verified';
  agent_email_verified_at: string | null;
  /** True when approval is possible: owner code claimed, agent mailbox verified when set. */
  ready_for_approval: boolean;
  operator_approved_at: string | null;
  operator_decided_at: string | null;
  operator_decided_by: string | null;
  scopes: string[];
  created_at: string;
  age_seconds: number;
}

/** Answer of `approveInstallation` and `blockInstallation`. */
export interface InstallationDecision {
  installation: AdminInstallation;
  previous_status: ApprovalStatus;
  /** False when the installation already was in that state. */
  changed: boolean;
  audit_id: string;
}

/** An organization as the operator sees it. */
export interface AdminOrganization {
  id: string;
  name: string;
  short_id: string;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

/** Answer of `activateOrganization` and `deactivateOrganization`. */
export interface OrganizationChange {
  organization: AdminOrganization;
  changed: boolean;
  audit_id: string;
}

/** Registration access: anyone (`open`, the default) or invited owner emails only. */
export type AccessMode = 'open' | 'invite_only';

/** Answer of `setAccessMode`. */
export interface AccessModeChange {
  mode: AccessMode;
  previous_mode: AccessMode;
  changed: boolean;
  audit_id: string;
}

/** An invitation of an owner email. */
export interface AccessInvite {
  email: string;
  invited_by: string;
  created_at: string;
  used_at: string | null;
}

/** Answer of `invite`. */
export interface InviteResult {
  invite: AccessInvite;
  /** False when the address was already invited. */
  created: boolean;
  audit_id: string;
}

/** An address the gateway will not mail. */
export interface MailSuppression {
  email: string;
  reason: string;
  created_by: string;
  created_at: string;
}

/** Answer of `suppressMail`. */
export interface SuppressResult {
  suppression: MailSuppression;
  created: boolean;
  audit_id: string;
}

/** Answer of `unsuppressMail`. */
export interface UnsuppressResult {
  email: string;
  /** False when the address was not suppressed. */
  removed: boolean;
  audit_id: string;
}

/** The state of a run approval: `expired` is a pending one past its `expires_at`. */
export type RunApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** A run approval as the operator sees it (never its token or the token's hash). */
export interface RunApproval {
  approval_id: string;
  status: RunApprovalStatus;
  organization_id: string;
  installation_id: string;
  capability_id: string;
  capability_version: string;
  /** sha-256 of the canonical params the approval is bound to. */
  params_hash: string;
  reason: string;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  /** Set once the approved run executed. */
  consumed_at: string | null;
}

/** One parameter of a waiting run as the operator reads it (secrets masked, as the console shows them). */
export interface ApprovalParamRow {
  /** The value's path in the params, e.g. `iban`, `lines[0].amount`. */
  label: string;
  value: string;
  masked: boolean;
}

/** What the capability's own checks say of a waiting run's params (asked when the approval is read). */
export type ApprovalPreflight =
  | { verdict: 'passes' | 'none' | 'unknown' | 'failed' }
  | { verdict: 'violations'; violations: Array<{ schema_pointer: string; message: string }> };

/** Answer of `getApproval`: the approval with what the operator needs to decide. */
export interface RunApprovalDetail extends RunApproval {
  /** Null when the gateway kept no params for it (an approval from before it kept them). */
  params: ApprovalParamRow[] | null;
  risk_level: string | null;
  estimated_cost_credits: string | null;
  preflight: ApprovalPreflight;
}

/** Answer of `approveApproval` and `denyApproval`. */
export interface RunApprovalDecision {
  approval: RunApproval;
  previous_status: RunApprovalStatus;
  /** False when the approval already had this decision. */
  changed: boolean;
  /** The deny reason, when one was given. */
  reason?: string;
  audit_id: string;
}

/** A budget policy profile; a null cap means no cap. Amounts are exact decimal strings in credits. */
export interface BudgetPolicy {
  organization_id: string;
  task_cap_credits: string | null;
  daily_cap_credits: string | null;
  monthly_cap_credits: string | null;
  burn_rate_hourly_cap_credits: string | null;
  kill_switch_enabled: boolean;
  /** Null while the organization never had a profile. */
  updated_at: string | null;
}

/** Fields of `setPolicy`: only those present change; null clears a cap. */
export interface BudgetPolicyPatch {
  task_cap_credits?: string | null;
  daily_cap_credits?: string | null;
  monthly_cap_credits?: string | null;
  burn_rate_hourly_cap_credits?: string | null;
  kill_switch_enabled?: boolean;
}

/** Answer of `setPolicy`. */
export interface BudgetPolicyChange {
  policy: BudgetPolicy;
  previous: BudgetPolicy;
  changed: boolean;
  audit_id: string;
}

/** One wallet ledger row (append-only); `amount_credits` is positive, `kind` gives the direction. */
export interface LedgerEntry {
  id: string;
  kind: 'charge' | 'credit';
  amount_credits: string;
  capability_id: string | null;
  occurred_at: string;
}

/** An organization's wallet: balance, spend windows (last hour, UTC day, UTC month), policy, newest rows. */
export interface Wallet {
  organization_id: string;
  currency: 'credits';
  balance_credits: string;
  spent: { hour_credits: string; today_credits: string; month_credits: string };
  policy: {
    policy_profile_id: string | null;
    task_cap_credits: string | null;
    daily_cap_credits: string | null;
    monthly_cap_credits: string | null;
    burn_rate_hourly_cap_credits: string | null;
    kill_switch_enabled: boolean;
  };
  /** The newest ledger rows (up to 20), newest first. */
  ledger: LedgerEntry[];
}

/** One organization and its wallet, as `listOrganizations` answers it. */
export interface OrganizationSummary {
  id: string;
  name: string;
  short_id: string;
  is_active: boolean;
  created_at: string;
  wallet: Omit<Wallet, 'organization_id' | 'currency' | 'ledger'>;
}

/** One page of `listOrganizations`; pass `next_cursor` back for the next (null on the last). */
export interface OrganizationPage {
  organizations: OrganizationSummary[];
  next_cursor: string | null;
}

/** One wallet, as `listWallets` answers it. */
export interface WalletSummary extends Omit<Wallet, 'ledger'> {
  organization_name: string;
  organization_active: boolean;
}

/** One page of `listWallets`. */
export interface WalletPage {
  wallets: WalletSummary[];
  next_cursor: string | null;
}

/** Answer of `creditWallet`. */
export interface WalletCredit {
  organization_id: string;
  entry: LedgerEntry;
  balance_credits: string;
  /** True when the gateway answered an earlier credit with the same idempotency key. */
  replayed: boolean;
  memo?: string;
  audit_id: string;
}

/** One audit-log row (`GET /admin/audit`); rows hold no secrets (keys appear by prefix only). */
export interface AuditEvent {
  audit_id: string;
  /** Its place in the hash chain; null until the gateway's sealer reached it (about a second). */
  seq: number | null;
  /** ISO 8601 UTC to the microsecond. */
  occurred_at: string;
  request_id: string;
  /** `installation:<id>`, `operator:<key prefix>`, `anonymous`, `cli:database`. */
  actor: string;
  /** e.g. `capability.invoke`, `installation.approve`, `http.request`. */
  action: string;
  /** e.g. `allowed`, `denied`, `succeeded`, `failed`, `replayed`, `simulated`. */
  outcome: string;
  http_status: number;
  organization_id: string | null;
  details: Record<string, unknown>;
}

/** Filters of `listAuditEvents`; every one narrows the list. */
export interface AuditEventFilter {
  organization?: string;
  /** Rows of this installation: its own actions and operator actions on it. */
  installation?: string;
  actor?: string;
  action?: string;
  outcome?: string;
  /** ISO 8601 date-time: only rows at or after it. */
  since?: string;
  /** 1–500, default 50. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

/** One page of `listAuditEvents`, newest first. */
export interface AuditEventPage {
  events: AuditEvent[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

/** Why a chain position does not verify. */
export type AuditChainFault =
  | 'hash_mismatch'
  | 'missing_seq'
  | 'row_missing'
  | 'prev_hash_mismatch'
  | 'anchor_mismatch';

/** A chain head recorded earlier (`verifyAuditLog().head`), to detect a cut-off or rewritten tail. */
export interface AuditChainAnchor {
  seq: number;
  hash: string;
}

/** Answer of `verifyAuditLog`. */
export interface AuditChainVerification {
  /** True when every sealed row verifies (and the anchor, when given, matches). */
  ok: boolean;
  sealed: number;
  /** Rows not yet sealed (normally only those of the last second). */
  unsealed: number;
  head: AuditChainAnchor | null;
  first_bad: {
    seq: number;
    reason: AuditChainFault;
    message: string;
    audit_id: string | null;
  } | null;
  verified_at: string;
}
