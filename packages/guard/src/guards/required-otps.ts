import { GuardConfigError } from '../errors.js';
import { deny, type Guard, type GuardDetail, type InstallationState, pass } from '../guard.js';
import type { InstallationStore } from '../ports.js';

/** Options of {@link requiredOtpsGuard}. */
export interface RequiredOtpsGuardOptions {
  readonly installations: InstallationStore;
}

/**
 * `required_otps`: the owner code was claimed and, when the installation has an `agent_email`, the
 * agent mailbox was verified. Otherwise 412 `precondition_failed` with a hint and `details[]` naming
 * each missing step and its endpoint. Adds the installation state to the facts so
 * `operator_approval` does not read it again.
 */
export function requiredOtpsGuard(options: RequiredOtpsGuardOptions): Guard {
  if (typeof options?.installations?.getState !== 'function') {
    throw new GuardConfigError('requiredOtpsGuard needs installations: InstallationStore.');
  }
  const { installations } = options;

  return {
    name: 'required_otps',
    async check({ facts }) {
      const installation = await loadInstallation(installations, facts.principal?.installation_id);
      const missing: GuardDetail[] = [];
      if (installation.owner_verified_at === null) {
        missing.push({ missing: 'owner_otp', endpoint: '/owner-otp/claim' });
      }
      if (installation.agent_email !== null && installation.agent_email_verified_at === null) {
        missing.push({ missing: 'agent_otp', endpoint: '/agent-otp/verify' });
      }
      if (missing.length > 0) {
        const steps = missing.map((detail) => `POST ${String(detail.endpoint)}`).join(' and ');
        return deny(
          'precondition_failed',
          'Onboarding is not complete: a required one-time code is not redeemed.',
          {
            hint: `Redeem the missing code first: ${steps}. Do not retry in a loop.`,
            details: missing,
          },
        );
      }
      return pass({ installation });
    },
  };
}

/**
 * Reads the installation of the resolved principal; a missing principal or installation is a fault,
 * because it means the chain was built without `installation_key` or the store is inconsistent.
 * @internal
 */
export async function loadInstallation(
  installations: InstallationStore,
  installationId: string | undefined,
): Promise<InstallationState> {
  if (installationId === undefined) {
    throw new Error('No principal: installation_key must run before this guard.');
  }
  const installation = await installations.getState(installationId);
  if (installation === undefined)
    throw new Error(`Installation ${installationId} of a valid key was not found.`);
  return installation;
}
