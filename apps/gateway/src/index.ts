export {
  ACCESS_MODE_SETTING,
  type AccessMode,
  type InviteView,
} from './admin/access.js';
export type { AuditEventView } from './admin/audit-log.js';
export {
  ensureOperatorKey,
  OPERATOR_KEY_FILE,
  type OperatorKeyBootstrap,
} from './admin/bootstrap-operator-key.js';
export type {
  AgentEmailVerification,
  ApprovalStatus,
  DecisionResult,
  InstallationView,
} from './admin/installations.js';
export { authenticateOperator, type OperatorPrincipal } from './admin/operator-auth.js';
export {
  type CreatedOperatorKey,
  countActiveOperatorKeys,
  createOperatorKey,
  listOperatorKeys,
  OPERATOR_SCOPE,
  type OperatorKeyView,
} from './admin/operator-keys.js';
export type { OrganizationView } from './admin/organizations.js';
export type { SuppressionView } from './admin/suppressions.js';
export { type AppDependencies, createApp, type GatewayApp } from './app.js';
export {
  type AuditSealer,
  type AuditSealerOptions,
  createAuditSealer,
  DEFAULT_SEAL_INTERVAL_MS,
  sealAuditChain,
} from './audit-chain/sealer.js';
export {
  type ChainAnchor,
  type ChainFault,
  type ChainVerification,
  verifyAuditChain,
} from './audit-chain/verify.js';
export { type HealthChecks, overallStatus, runHealthChecks } from './checks/health.js';
export {
  ConfigError,
  type ConfigOverrides,
  type GatewayConfig,
  type LogLevel,
  loadConfig,
  logLevels,
  redactUrl,
} from './config.js';
export { type Database, type DatabaseDriver, openDatabase } from './db/knex.js';
export { knexTransaction } from './db/knex-transaction.js';
export {
  allMigrations,
  type GatewayMigration,
  gatewayMigrations,
  MIGRATIONS_TABLE,
  type MigrationResult,
  runMigrations,
} from './db/migrate.js';
export type { SqlPool, TransactionSql } from './db/pool.js';
export {
  buildDiscoveryDocuments,
  type DiscoveryDocuments,
  type DiscoveryOptions,
} from './discovery-documents.js';
export { jsonBody } from './http/body.js';
export { GatewayError, type GatewayErrorOptions, isDependencyFailure } from './http/gateway-error.js';
export { ANONYMOUS_BODY_LIMIT_BYTES } from './http/key-before-body.js';
export { REQUEST_ID_HEADER } from './http/request-id.js';
export type { GatewayState } from './http/state.js';
export { invalidUtf8Offset } from './http/strict-utf8.js';
export { auditKeyHash, hashIdempotencyKey } from './idempotency/key-hash.js';
export {
  IDEMPOTENCY_KEY_HEADER,
  parseIdempotencyKey,
  REPLAYED_HEADER,
} from './idempotency/key-header.js';
export { rehashLegacyIdempotencyKeys } from './idempotency/legacy-keys.js';
export {
  type MutationAudit,
  type MutationSuccess,
  ReleasedRefusal,
  type RunIdempotentOptions,
  runIdempotent,
  StoredRefusal,
} from './idempotency/run.js';
export {
  type BeginResult,
  type IdempotencyScope,
  IdempotencyStore,
  type IdempotencyTimings,
  type StoredResponse,
} from './idempotency/store.js';
export { createInvokeRuntime, DEFAULT_RATE_LIMITS, type InvokeRuntime } from './invoke/runtime.js';
export { type OpenTransaction, UnitOfWork } from './invoke/unit-of-work.js';
export { createJobWorker, type JobWorker, type JobWorkerOptions } from './jobs/worker.js';
export { type AuthenticatedKey, authenticateKey } from './keys/authenticate.js';
export { type IssuedKey, type IssueKeyInput, issueKey, KEY_TTL_SECONDS } from './keys/issue-key.js';
export {
  type ApiKeyRow,
  createKnexInstallationStore,
  createKnexKeyStore,
  type KnexKeyStoreOptions,
} from './keys/key-store.js';
export { renderLlmsTxt } from './llms-txt.js';
export { createLogger, type Logger, type LoggerOptions, redactSecrets } from './logger.js';
export { MailOutbox, type StagedMail, stageMail } from './mail/outbox.js';
export { createMailTransport, type MailTransport, type OutgoingMail } from './mail/transport.js';
export { type McpRouteOptions, registerMcpRoutes } from './mcp/routes.js';
export { callMetaTool, type McpHttpFacts, type McpToolOutcome } from './mcp/tool-call.js';
export { type CatalogCaller, capabilityAccess } from './meta-tools/access.js';
export {
  errorAnswer,
  type MetaTool,
  type MetaToolAnswer,
  type MetaToolRequest,
} from './meta-tools/answer.js';
export {
  asCapabilityContract,
  type CatalogContract,
  type CatalogVersions,
  catalogDigest,
  compareVersions,
  defaultVersion,
  groupVersions,
} from './meta-tools/catalog.js';
export {
  type CursorCodec,
  type CursorState,
  createCursorCodec,
  searchFingerprint,
} from './meta-tools/cursor.js';
export {
  describeCapability,
  levenshtein,
  NEAREST_ID_COUNT,
  nearestIds,
  resolveCapability,
} from './meta-tools/describe.js';
export { dryRun } from './meta-tools/dry-run.js';
export { type InvokeDependencies, invoke } from './meta-tools/invoke.js';
export {
  DEFAULT_SEARCH_LIMIT,
  rankCapabilities,
  type SearchFilters,
  type SearchOptions,
  searchCapabilities,
} from './meta-tools/search.js';
export {
  buildSearchIndex,
  FIELD_WEIGHTS,
  PREFIX_FACTOR,
  riskRank,
  type SearchIndex,
  tokenize,
} from './meta-tools/search-index.js';
export {
  type AccessServices,
  type AccessServicesOptions,
  createAccessServices,
} from './onboarding/services.js';
export { generateOtp, OTP_DIGITS, type OtpPurpose, otpMac } from './otp/codes.js';
export { defaultOtpSettings, type OtpSettings } from './otp/otp-service.js';
export { createPeriodicTask, type PeriodicTask } from './periodic.js';
export { createKnexApprovalStore } from './ports/approval-store.js';
export { createKnexAuditSink } from './ports/audit-sink.js';
export { createChargeRollup, DEFAULT_ROLLUP_INTERVAL_MS, rollUpCharges } from './ports/wallet-rollup.js';
export { createKnexWalletStore, credits, readWalletSnapshot } from './ports/wallet-store.js';
export { type AccessRouteOptions, registerAccessRoutes } from './routes/access.js';
export {
  createMetaToolHandlers,
  type MetaToolHandlers,
  type MetaToolRouteOptions,
  registerMetaToolRoutes,
} from './routes/meta-tools.js';
export { SecretBox, type SecretPurpose } from './secrets/secret-box.js';
export { loadServerSecret, SECRET_FILE_NAME } from './secrets/server-secret.js';
export { type GatewayHandle, type StartOptions, startGateway } from './server.js';
export { GATEWAY_VERSION } from './version.js';
