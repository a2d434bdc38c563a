import type { KillSwitchStore } from '@agw/guard';
import type { Knex } from 'knex';

/**
 * The guard's KillSwitchStore over `policy_profiles` (no row: off, policy_profile_id null). Reads the
 * pool, not the invoke's transaction: the policy guard runs before the transaction starts.
 */
export function createKnexKillSwitchStore(knex: Knex): KillSwitchStore {
  return {
    async getKillSwitch(organizationId) {
      const row = await knex('policy_profiles')
        .where({ organization_id: organizationId })
        .first<{ kill_switch: boolean } | undefined>('kill_switch');
      return {
        enabled: row?.kill_switch === true,
        // The same id the wallet snapshot reports (src/ports/wallet-store.ts).
        policy_profile_id: row === undefined ? null : `policy_${organizationId}`,
      };
    },
  };
}
