import { type DomainMigration, tenantKeysCheckedAtCommit } from '@agw/capabilities';

/**
 * The gateway's tables' foreign keys to the tenant (`organizations`, `installations`), checked at COMMIT
 * as the domains' are (`tenantKeysCheckedAtCommit` of @agw/capabilities says why). `wallet_ledger`'s is
 * the one every paid invoke writes; the others follow the rule so it has no exceptions. Written as a
 * domain's migration is (statements), so src/db/migrate.ts runs it the same way.
 */
export const tenantKeysAtCommit: DomainMigration = tenantKeysCheckedAtCommit(
  '20261207000000_tenant_keys_at_commit',
  [
    ['installations', 'installations_organization_id_foreign'],
    ['api_keys', 'api_keys_organization_id_foreign'],
    ['api_keys', 'api_keys_installation_id_foreign'],
    ['otp_codes', 'otp_codes_installation_id_foreign'],
    ['wallets', 'wallets_organization_id_foreign'],
    ['policy_profiles', 'policy_profiles_organization_id_foreign'],
    ['approvals', 'approvals_organization_id_foreign'],
    ['approvals', 'approvals_installation_id_foreign'],
    ['invoke_jobs', 'invoke_jobs_organization_id_foreign'],
    ['invoke_jobs', 'invoke_jobs_installation_id_foreign'],
    ['wallet_spend', 'wallet_spend_organization_id_foreign'],
    ['wallet_ledger', 'wallet_ledger_organization_id_foreign'],
  ],
);
