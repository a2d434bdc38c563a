export { coreOrgCurrentGetHandler } from './core/org-current-get.js';
export {
  type CapabilityContext,
  type CapabilityDataPort,
  CapabilityError,
  type CapabilityHandler,
  type Credits,
  defineCapabilityHandler,
  type OrganizationRecord,
  type WalletPolicyView,
  type WalletReadPort,
  type WalletView,
} from './define.js';
export { capabilityHandlers, findCapabilityHandler } from './registry.js';
export {
  type BudgetCheckInput,
  type BudgetCheckResult,
  walletAgentBudgetGuardCheckHandler,
} from './wallet/agent-budget-guard-check.js';
