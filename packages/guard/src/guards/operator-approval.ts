import { GuardConfigError } from '../errors.js';
import { deny, type Guard, pass } from '../guard.js';
import type { InstallationStore } from '../ports.js';
import { loadInstallation } from './required-otps.js';

/** Options of {@link operatorApprovalGuard}. */
export interface OperatorApprovalGuardOptions {
  readonly installations: InstallationStore;
}

/**
 * `operator_approval`: the organization is active and the operator approved the installation.
 * Inactive organization → 403 `organization_inactive`; `blocked` → 403 `installation_blocked`
 * (stop, hand over to a human); `pending` → 412 `precondition_failed` (wait, poll /org/current).
 * Reuses the installation state `required_otps` read, if present.
 */
export function operatorApprovalGuard(options: OperatorApprovalGuardOptions): Guard {
  if (typeof options?.installations?.getState !== 'function') {
    throw new GuardConfigError('operatorApprovalGuard needs installations: InstallationStore.');
  }
  const { installations } = options;

  return {
    name: 'operator_approval',
    async check({ facts }) {
      const installation =
        facts.installation ?? (await loadInstallation(installations, facts.principal?.installation_id));
      if (!installation.organization_is_active) {
        return deny('organization_inactive', 'The organization is inactive.');
      }
      if (installation.operator_approval_status === 'blocked') {
        return deny('installation_blocked', 'The operator blocked this installation.');
      }
      if (installation.operator_approval_status !== 'approved') {
        return deny('precondition_failed', 'The operator has not approved this installation yet.', {
          hint: 'Wait for operator approval: poll GET /org/current after 30 s, then at most once a minute, for at most 15 minutes.',
          details: [{ missing: 'operator_approval', status: installation.operator_approval_status }],
        });
      }
      return pass(facts.installation ? undefined : { installation });
    },
  };
}
