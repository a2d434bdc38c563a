/**
 * @agw/client/admin — a typed client of the gateway's operator admin API (`/admin/*`), authorized by
 * an operator key. Built on the SDK's transport, so retries, `GatewayError` and redaction behave as in
 * `@agw/client`. Used by the `agw` CLI's operator commands.
 */

export { ConnectionError, GatewayError } from '../errors.js';
export type { AdminClient, AdminClientOptions } from './client.js';
export { createAdminClient } from './client.js';
export type {
  AccessInvite,
  AccessMode,
  AccessModeChange,
  AdminInstallation,
  AdminOrganization,
  ApprovalParamRow,
  ApprovalPreflight,
  ApprovalStatus,
  AuditChainAnchor,
  AuditChainFault,
  AuditChainVerification,
  AuditEvent,
  AuditEventFilter,
  AuditEventPage,
  BudgetPolicy,
  BudgetPolicyChange,
  BudgetPolicyPatch,
  CreatedOperatorKey,
  InstallationDecision,
  InviteResult,
  LedgerEntry,
  MailSuppression,
  OperatorKey,
  OrganizationChange,
  OrganizationPage,
  OrganizationSummary,
  RunApproval,
  RunApprovalDecision,
  RunApprovalDetail,
  RunApprovalStatus,
  SuppressResult,
  UnsuppressResult,
  Wallet,
  WalletCredit,
  WalletPage,
  WalletSummary,
} from './types.js';
