import type { CapabilityDomain } from '../domain.js';
import { coreOrgCurrentGetHandler } from './org-current-get.js';

/** `core`: the caller's own organization. No tables of its own (it reads the gateway's `organizations`). */
export const coreDomain: CapabilityDomain = {
  name: 'core',
  handlers: [coreOrgCurrentGetHandler],
  migrations: [],
};
