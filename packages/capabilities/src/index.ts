export { coreOrgCurrentGetHandler } from './core/org-current-get.js';
export {
  type CapabilityContext,
  type CapabilityDataPort,
  CapabilityError,
  type CapabilityFetch,
  type CapabilityHandler,
  type CapabilityViolation,
  type Credits,
  type DocumentRecord,
  defineCapabilityHandler,
  type NewDocumentRecord,
  type OrganizationRecord,
  type WalletPolicyView,
  type WalletReadPort,
  type WalletView,
} from './define.js';
export {
  type DocumentUploadInput,
  type DocumentUploadResult,
  documentsDocumentUploadHandler,
} from './documents/document-upload.js';
export { isTextLike, MAX_UPLOAD_BYTES } from './documents/upload-content.js';
export { capabilityHandlers, findCapabilityHandler } from './registry.js';
export {
  type BudgetCheckInput,
  type BudgetCheckResult,
  walletAgentBudgetGuardCheckHandler,
} from './wallet/agent-budget-guard-check.js';
