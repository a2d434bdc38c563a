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
