import { requiredOtpsGuard } from '@agw/guard';
import type { Knex } from 'knex';
import { GatewayError } from '../http/gateway-error.js';
import { createKnexInstallationStore } from '../keys/key-store.js';
import type { InstallationRow } from './views.js';

/**
 * Stop signals before any effect: an inactive organization → 403 `organization_inactive`, a blocked
 * installation → 403 `installation_blocked`. Used by claim, verify, resend and rotate.
 */
export async function assertOperational(knex: Knex, installationId: string): Promise<void> {
  const state = await createKnexInstallationStore(knex).getState(installationId);
  if (!state)
    throw new GatewayError('invalid_api_key', { message: 'The API key is malformed, unknown or wrong.' });
  if (!state.organization_is_active) {
    throw new GatewayError('organization_inactive', { message: 'The organization is inactive.' });
  }
  if (state.operator_approval_status === 'blocked') {
    throw new GatewayError('installation_blocked', { message: 'The operator blocked this installation.' });
  }
}

/**
 * The onboarding path is done (owner claimed; agent mailbox verified when set), decided by
 * @agw/guard's `required_otps` guard: otherwise 412 `precondition_failed` naming the missing steps.
 */
export async function assertInitialPathDone(
  knex: Knex,
  installationId: string,
  organizationId: string,
): Promise<void> {
  const guard = requiredOtpsGuard({ installations: createKnexInstallationStore(knex) });
  const decision = await guard.check({
    request: {
      capability: {
        id: 'access',
        version: '1.0.0',
        risk_level: 'low',
        scopes: [],
        cost_credits: '0',
        mutating: false,
        input_schema: {},
      },
      params: undefined,
    },
    facts: {
      principal: {
        key_id: '',
        key_prefix: '',
        kind: 'installation',
        installation_id: installationId,
        organization_id: organizationId,
        scopes: [],
      },
    },
    mode: 'invoke',
    trace: [],
  });
  if (decision.outcome === 'deny') {
    throw new GatewayError(decision.code, {
      message: decision.message,
      ...(decision.hint === undefined ? {} : { hint: decision.hint }),
      ...(decision.details === undefined ? {} : { details: decision.details }),
    });
  }
}

/** The installation row, locked for the rest of the transaction. */
export async function lockInstallation(
  trx: Knex.Transaction,
  installationId: string,
): Promise<InstallationRow> {
  const row = await trx('installations').where({ id: installationId }).forUpdate().first();
  if (!row) throw new Error(`installation ${installationId} of a valid key is missing`);
  return row as InstallationRow;
}
