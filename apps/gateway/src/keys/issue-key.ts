import { generateApiKey } from '@agw/guard';
import type { Knex } from 'knex';

/** What to issue. */
export interface IssueKeyInput {
  readonly kind: 'bootstrap' | 'installation';
  readonly scopes: readonly string[];
  readonly ttlSeconds: number;
  readonly appId?: string;
  readonly installationId?: string;
  readonly organizationId?: string;
  readonly rotatedFromId?: string;
}

/** A key just issued: the token is returned to the caller once and never stored. */
export interface IssuedKey {
  readonly id: string;
  readonly token: string;
  readonly prefix: string;
  readonly expiresAt: string;
  readonly scopes: string[];
}

/** Key lifetimes (decisions, see README): bootstrap 1 h, installation and rotated keys 90 days. */
export const KEY_TTL_SECONDS = { bootstrap: 3600, installation: 90 * 24 * 3600 } as const;

/** Inserts a new key (prefix and sha-256 of the secret only) in the caller's transaction. */
export async function issueKey(trx: Knex.Transaction, input: IssueKeyInput): Promise<IssuedKey> {
  const key = generateApiKey();
  const [row] = await trx('api_keys')
    .insert({
      prefix: key.prefix,
      secret_hash: key.hash,
      kind: input.kind,
      app_id: input.appId ?? null,
      installation_id: input.installationId ?? null,
      organization_id: input.organizationId ?? null,
      scopes: [...input.scopes],
      expires_at: trx.raw('now() + make_interval(secs => ?)', [input.ttlSeconds]),
      rotated_from_id: input.rotatedFromId ?? null,
    })
    .returning(['id', 'expires_at']);
  return {
    id: row.id,
    token: key.token,
    prefix: key.prefix,
    expiresAt: new Date(row.expires_at).toISOString(),
    scopes: [...input.scopes],
  };
}
