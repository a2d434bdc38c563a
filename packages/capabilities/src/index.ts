export { analyticsDomain } from './analytics/index.js';
export { assistDomain } from './assist/index.js';
export { documentQueryText, documentQueryValues } from './billing/document-query.js';
export {
  type BillingDomainOptions,
  billingDomain,
  billingHandlers,
  createBillingDomain,
} from './billing/index.js';
export type { RenderPoolOptions } from './billing/outputs/render-pool.js';
export type { ValidationError, ValidationReport } from './billing/outputs/rendering.js';
export {
  detectEInvoiceKind,
  EINVOICE_KINDS,
  type EInvoiceKind,
  validateEInvoice,
} from './billing/outputs/validate/index.js';
export { readDocument } from './billing/read-document.js';
export type {
  BillingDocumentRow,
  BillingLineRow,
  BillingPaymentRow,
  StoredBillingDocument,
} from './billing/records.js';
export { computeTotals, deriveTaxTreatment, type Totals, type TotalsInput } from './billing/totals.js';
export { calendarDomain } from './calendar/index.js';
export { computeSlots, type Slot, type SlotQuery } from './calendar/slots.js';
export { coreDomain } from './core/index.js';
export { coreOrgCurrentGetHandler } from './core/org-current-get.js';
export {
  type CapabilityContext,
  CapabilityError,
  type CapabilityErrorCode,
  type CapabilityFetch,
  type CapabilityHandler,
  type CapabilityPreflight,
  type CapabilityViolation,
  type Credits,
  type DocumentRecord,
  defineCapabilityHandler,
  type IdGenerator,
  type PreflightContext,
  preflightOf,
  type WalletPolicyView,
  type WalletReadPort,
  type WalletView,
} from './define.js';
export {
  type DocumentUploadInput,
  type DocumentUploadResult,
  documentsDocumentUploadHandler,
} from './documents/document-upload.js';
export { documentsDomain } from './documents/index.js';
export { isTextLike, MAX_UPLOAD_BYTES } from './documents/upload-content.js';
export type {
  CapabilityDomain,
  DomainHost,
  DomainLog,
  DomainMigration,
  DomainService,
  DomainTask,
  PublicError,
  PublicErrorOptions,
  PublicRequest,
  PublicResponse,
  PublicRoute,
  RateLimitVerdict,
} from './domain.js';
export { tenantKeysCheckedAtCommit, tenantRowLevelSecurity } from './domain.js';
export type { DomainMail, MailAttachment, MailPort } from './mail.js';
export {
  capabilityDomains,
  capabilityExtensions,
  capabilityHandlers,
  capabilityMigrations,
  findCapabilityHandler,
} from './registry.js';
export {
  runStatement,
  type Sql,
  type SqlDatabase,
  type SqlQueryOptions,
  type SqlResult,
  type SqlStatement,
} from './sql.js';
export { searchQuery } from './text-search.js';
export {
  type BudgetCheckInput,
  type BudgetCheckResult,
  walletAgentBudgetGuardCheckHandler,
} from './wallet/agent-budget-guard-check.js';
export { walletDomain } from './wallet/index.js';
