import { parseApiKey, verifySecret } from '@agw/guard';
import type { Knex } from 'knex';
import { GatewayError } from '../http/gateway-error.js';

/** The operator behind an admin request: the key that authenticated it. */
export interface OperatorPrincipal {
  readonly keyId: string;
  readonly prefix: string;
  /** `operator:<prefix>`: the actor written to audit rows and `operator_decided_by`. */
  readonly actor: string;
}

interface KeyRow {
  id: string;
  prefix: string;
  secret_hash: string;
  kind: string;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/**
 * Authenticates an admin request from its `Authorization` header. Only an operator key passes:
 * - no header, or another scheme than Bearer → 401 `unauthenticated`;
 * - malformed, bad checksum, unknown prefix or wrong secret → 401 `invalid_api_key` (one answer for
 *   all, so nothing tells a guessed prefix from a real one);
 * - the right secret of a revoked or expired key → 401 `api_key_revoked` / `api_key_expired` (only
 *   after the secret matched: saying so leaks nothing to someone without the key);
 * - a live installation or bootstrap key → 403 `forbidden`.
 * Expiry is judged with the database clock. `last_used_at` is updated on success.
 */
export async function authenticateOperator(
  knex: Knex,
  authorization: string | undefined,
): Promise<OperatorPrincipal> {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  if (!match?.[1]) {
    throw new GatewayError('unauthenticated', {
      message: 'The admin API needs an operator key: send Authorization: Bearer agw_ak_<prefix>.<secret>.',
      hint: 'The first operator key is in DATA_DIR/operator.key; create more with `agw operator key create`.',
    });
  }
  const parsed = parseApiKey(match[1]);
  if (!parsed) throw invalidKey();
  const row = (await knex<KeyRow>('api_keys')
    .select('id', 'prefix', 'secret_hash', 'kind', 'expires_at', 'revoked_at')
    .select(knex.raw('(expires_at is not null and expires_at <= now()) as expired'))
    .where({ prefix: parsed.prefix })
    .first()) as (KeyRow & { expired: boolean }) | undefined;
  // Hash and compare even for an unknown prefix (verifySecret uses a dummy digest then).
  if (!verifySecret(parsed.secret, row?.secret_hash) || !row) throw invalidKey();
  if (row.revoked_at !== null)
    throw new GatewayError('api_key_revoked', { message: 'This key was revoked.' });
  if (row.expired) throw new GatewayError('api_key_expired', { message: 'This key has expired.' });
  if (row.kind !== 'operator') {
    throw new GatewayError('forbidden', {
      message: 'The admin API accepts only operator keys; this is an installation or bootstrap key.',
      hint: 'Use an operator key (DATA_DIR/operator.key or `agw operator key create`).',
    });
  }
  await knex('api_keys').where({ id: row.id }).update({ last_used_at: knex.fn.now() });
  return { keyId: row.id, prefix: row.prefix, actor: `operator:${row.prefix}` };
}

function invalidKey(): GatewayError {
  return new GatewayError('invalid_api_key', { message: 'The API key is not valid.' });
}
