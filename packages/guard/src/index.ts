export { type AjvSchemaValidator, createAjvSchemaValidator } from './ajv-validator.js';
export { canonicalJson, hashParams, sha256Hex } from './canonical-json.js';
export {
  createGuardChain,
  type GuardChainOptions,
  type GuardObserver,
  type ObservedDecision,
  shadowableGuards,
} from './chain.js';
export { createEgressFetch, type EgressFetch, type EgressFetchOptions } from './egress-fetch.js';
export { type FaultCode, GuardConfigError, GuardDenied, GuardFault } from './errors.js';
export {
  type ApprovalChallenge,
  type BeforeChallenge,
  type ChallengeDecision,
  type DenyDecision,
  defineGuard,
  deny,
  type Guard,
  type GuardCapability,
  type GuardContext,
  type GuardDecision,
  type GuardDetail,
  type GuardFacts,
  type GuardMode,
  type GuardName,
  type GuardRequest,
  guardOrder,
  type InstallationState,
  isGuardName,
  type JsonSchema,
  type PassDecision,
  type Principal,
  pass,
  type RateLimitFact,
  type RiskLevel,
  type SettleContext,
  type SettleFacts,
  type SettleOutcome,
  type TraceEntry,
} from './guard.js';
export { type AuditGuardOptions, auditGuard, buildAuditRecord } from './guards/audit.js';
export { type BillingGuardOptions, billingGuard, chargeScope } from './guards/billing.js';
export { type BudgetPorts, brokenCaps, budgetRefusal } from './guards/budget-refusal.js';
export { type EgressGuardOptions, egressGuard } from './guards/egress.js';
export {
  bearerToken,
  type InstallationKeyGuardOptions,
  installationKeyGuard,
} from './guards/installation-key.js';
export { type OperatorApprovalGuardOptions, operatorApprovalGuard } from './guards/operator-approval.js';
export { approvalReason, type PolicyGuardOptions, policyGuard } from './guards/policy.js';
export { generateApprovalToken } from './guards/policy-approval.js';
export type { RateLimitRule, RateLimits } from './guards/policy-rate-limit.js';
export { type RequiredOtpsGuardOptions, requiredOtpsGuard } from './guards/required-otps.js';
export { type SchemaGuardOptions, schemaGuard } from './guards/schema.js';
export { scopesGuard } from './guards/scopes.js';
export { isHostAllowed } from './hosts.js';
export {
  apiKeyPattern,
  type GeneratedApiKey,
  generateApiKey,
  hashSecret,
  type ParsedApiKey,
  parseApiKey,
  randomBase62,
  verifySecret,
} from './keys.js';
export * from './memory/index.js';
export {
  addCredits,
  compareCredits,
  creditScale,
  formatCredits,
  isCredits,
  parseCredits,
  subtractCredits,
} from './money.js';
export type {
  Admission,
  AdmitOptions,
  AdmittedRun,
  Deferral,
  DeferredRun,
  DryRun,
  ExecutableRun,
  Executed,
  ExecuteOptions,
  ExecutionContext,
  GuardChain,
  HandlerFailure,
  Refusal,
  SettleOptions,
} from './outcomes.js';
export type {
  ApprovalRecord,
  ApprovalStore,
  AuditRecord,
  AuditSink,
  BudgetPolicy,
  ChargeRequest,
  Clock,
  EgressPolicy,
  InstallationStore,
  KeyRecord,
  KeyStore,
  KillSwitchState,
  KillSwitchStore,
  MaybePromise,
  NewApproval,
  PendingApprovalMatch,
  RateLimiter,
  RateLimitRequest,
  RateLimitResult,
  SchemaValidator,
  SchemaViolation,
  WalletSnapshot,
  WalletStore,
} from './ports.js';
export { SettleFault, type Settlement, type SettleWrites } from './settle.js';
export { createStandardChain, createStandardGuards, type StandardGuardPorts } from './standard.js';
