import { type Guard, type GuardCapability, installationKeyGuard, type Principal } from '@agw/guard';
import type { Knex } from 'knex';
import { GatewayError } from '../http/gateway-error.js';
import { type ApiKeyRow, createKnexKeyStore } from './key-store.js';

/** The key holder of an access request. */
export interface AuthenticatedKey {
  readonly row: ApiKeyRow;
  /** A consumed bootstrap key or a key revoked by its own rotation (only a replay may use it). */
  readonly spent: boolean;
}

// The guards expect a capability; access and catalog endpoints are not capabilities, so they pass a
// neutral one (the installation_key guard does not look at it).
const accessCapability: GuardCapability = {
  id: 'access',
  version: '1.0.0',
  risk_level: 'low',
  scopes: [],
  cost_credits: '0',
  mutating: true,
  input_schema: {},
};

/**
 * Authenticates `Authorization: Bearer <key>` with @agw/guard's `installation_key` guard over the
 * knex KeyStore (strict parse, checksum, constant-time hash compare, revocation, expiry, kind).
 * A denial is thrown as the guard's GatewayError (401/403). With `spentIsLive` a spent key passes
 * (flagged `spent`) so the route can still replay the answer that spent it.
 */
export async function authenticateKey(
  knex: Knex,
  authorization: string | undefined,
  options: { kind: 'bootstrap' | 'installation'; spentIsLive?: boolean },
): Promise<AuthenticatedKey> {
  let found: ApiKeyRow | undefined;
  const guard = installationKeyGuard({
    keys: createKnexKeyStore(knex, {
      spentIsLive: options.spentIsLive ?? false,
      onRow: (row) => {
        found = row;
      },
    }),
    clock: { now: () => new Date() },
    acceptKinds: [options.kind],
  });
  await checkKey(guard, authorization);
  if (!found) throw new Error('installation_key guard passed without a key row');
  return { row: found, spent: found.consumed_at !== null || found.revoked_reason === 'rotated' };
}

/**
 * Runs an `installation_key` guard on `authorization` and returns the key's principal. A denial is thrown
 * as the guard's GatewayError (401/403), the same on every endpoint that takes a key.
 */
export async function checkKey(guard: Guard, authorization: string | undefined): Promise<Principal> {
  const decision = await guard.check({
    request: { authorization, capability: accessCapability, params: undefined },
    facts: {},
    mode: 'invoke',
    trace: [],
  });
  if (decision.outcome === 'deny') {
    throw new GatewayError(decision.code, {
      message: decision.message,
      ...(decision.hint === undefined ? {} : { hint: decision.hint }),
    });
  }
  const principal = decision.outcome === 'pass' ? decision.facts?.principal : undefined;
  if (principal === undefined) throw new Error('installation_key guard did not decide');
  return principal;
}
