import { runStatement } from '@agw/capabilities';
import type { KillSwitchStore } from '@agw/guard';
import type { Knex } from 'knex';
import { sqlOfKnex } from '../db/sql-knex.js';

const KILL_SWITCH = {
  name: 'agw.policy.kill-switch',
  text: 'select kill_switch from policy_profiles where organization_id = $1',
};

/**
 * The guard's KillSwitchStore over `policy_profiles` (no row: off, policy_profile_id null). Reads the
 * pool, not the invoke's transaction: the policy guard runs before the transaction starts. A named
 * statement on the SQL port (the chain caches the answer per organization, src/keys/state-cache.ts).
 */
export function createKnexKillSwitchStore(knex: Knex): KillSwitchStore {
  const sql = sqlOfKnex(knex);
  return {
    async getKillSwitch(organizationId) {
      const { rows } = await runStatement<{ kill_switch: boolean }>(sql, KILL_SWITCH, [organizationId]);
      const row = rows[0];
      return {
        enabled: row?.kill_switch === true,
        // The same id the wallet snapshot reports (src/ports/wallet-store.ts).
        policy_profile_id: row === undefined ? null : `policy_${organizationId}`,
      };
    },
  };
}
