import { coreOrgCurrentGetHandler } from './core/org-current-get.js';
import type { CapabilityHandler } from './define.js';
import { documentsDocumentUploadHandler } from './documents/document-upload.js';
import { walletAgentBudgetGuardCheckHandler } from './wallet/agent-budget-guard-check.js';

/** Every capability with a working handler; the gateway's catalog lists exactly these. */
export const capabilityHandlers: readonly CapabilityHandler<never>[] = Object.freeze([
  coreOrgCurrentGetHandler,
  documentsDocumentUploadHandler,
  walletAgentBudgetGuardCheckHandler,
]);

/** The handler of `id`@`version`, or undefined. */
export function findCapabilityHandler(id: string, version: string): CapabilityHandler<never> | undefined {
  return capabilityHandlers.find(
    (handler) => handler.contract.id === id && handler.contract.version === version,
  );
}
