import type { CapabilityDomain } from '../domain.js';
import { walletAgentBudgetGuardCheckHandler } from './agent-budget-guard-check.js';

/** `wallet`: budget checks over the wallet read port (the wallet tables are the gateway's). */
export const walletDomain: CapabilityDomain = {
  name: 'wallet',
  handlers: [walletAgentBudgetGuardCheckHandler],
  migrations: [],
};
