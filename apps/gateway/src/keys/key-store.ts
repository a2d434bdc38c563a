import { runStatement } from '@agw/capabilities';
import type { InstallationState, InstallationStore, KeyRecord, KeyStore } from '@agw/guard';
import type { Knex } from 'knex';
import { sqlOfKnex } from '../db/sql-knex.js';

// Named statements with explicit columns: a `select *` prepared on a long-lived connection fails
// ("cached plan must not change result type") once a migration adds a column.
const KEY_BY_PREFIX = {
  name: 'agw.keys.by-prefix',
  text: `select id, prefix, secret_hash, kind, app_id, installation_id, organization_id, scopes, expires_at,
                revoked_at, revoked_reason, consumed_at
           from api_keys where prefix = $1 limit 1`,
};
const INSTALLATION_STATE = {
  name: 'agw.installations.state',
  text: `select i.id, i.organization_id, i.owner_verified_at, i.agent_email, i.agent_email_verified_at,
                i.operator_approval_status, o.is_active
           from installations i join organizations o on o.id = i.organization_id
          where i.id = $1`,
};

interface InstallationRow {
  readonly id: string;
  readonly organization_id: string;
  readonly owner_verified_at: Date | null;
  readonly agent_email: string | null;
  readonly agent_email_verified_at: Date | null;
  readonly operator_approval_status: InstallationState['operator_approval_status'];
  readonly is_active: boolean;
}

/** An `api_keys` row as the access routes need it (never a plaintext secret: only its sha-256). */
export interface ApiKeyRow {
  readonly id: string;
  readonly prefix: string;
  readonly secret_hash: string;
  readonly kind: 'bootstrap' | 'installation' | 'operator';
  readonly app_id: string | null;
  readonly installation_id: string | null;
  readonly organization_id: string | null;
  readonly scopes: string[];
  readonly expires_at: Date | null;
  readonly revoked_at: Date | null;
  readonly revoked_reason: string | null;
  readonly consumed_at: Date | null;
}

/** Options of {@link createKnexKeyStore}. */
export interface KnexKeyStoreOptions {
  /**
   * Report a bootstrap key consumed by /organizations, or a key revoked by its own rotation, as still
   * live, so that the route can replay the answer that spent it; the route refuses every other use.
   */
  readonly spentIsLive?: boolean;
  /** Receives the row found, so the caller needs no second query. */
  readonly onRow?: (row: ApiKeyRow) => void;
}

/**
 * The guard's KeyStore over PostgreSQL: one indexed query by prefix. Operator keys are never
 * returned, so they are unknown (401 `invalid_api_key`) on every agent endpoint.
 */
export function createKnexKeyStore(knex: Knex, options: KnexKeyStoreOptions = {}): KeyStore {
  const sql = sqlOfKnex(knex);
  return {
    async findByPrefix(prefix: string): Promise<KeyRecord | undefined> {
      const { rows } = await runStatement<ApiKeyRow>(sql, KEY_BY_PREFIX, [prefix]);
      const row = rows[0];
      if (!row || row.kind === 'operator') return undefined;
      options.onRow?.(row);
      const spent = row.consumed_at !== null || row.revoked_reason === 'rotated';
      const revokedAt =
        row.revoked_at === null || (spent && options.spentIsLive) ? null : toIso(row.revoked_at);
      return {
        key_id: row.id,
        prefix: row.prefix,
        hash: row.secret_hash,
        kind: row.kind,
        // A bootstrap key belongs to an app, not yet to an installation or organization.
        installation_id: row.installation_id ?? '',
        organization_id: row.organization_id ?? '',
        scopes: row.scopes,
        expires_at: row.expires_at === null ? null : toIso(row.expires_at),
        revoked_at: row.consumed_at !== null && !options.spentIsLive ? toIso(row.consumed_at) : revokedAt,
      };
    },
  };
}

/** The guard's InstallationStore over PostgreSQL: the installation joined with its organization. */
export function createKnexInstallationStore(knex: Knex): InstallationStore {
  const sql = sqlOfKnex(knex);
  return {
    async getState(installationId: string): Promise<InstallationState | undefined> {
      const { rows } = await runStatement<InstallationRow>(sql, INSTALLATION_STATE, [installationId]);
      const row = rows[0];
      if (!row) return undefined;
      return {
        installation_id: row.id,
        organization_id: row.organization_id,
        owner_verified_at: row.owner_verified_at === null ? null : toIso(row.owner_verified_at),
        agent_email: row.agent_email,
        agent_email_verified_at:
          row.agent_email_verified_at === null ? null : toIso(row.agent_email_verified_at),
        operator_approval_status: row.operator_approval_status,
        organization_is_active: row.is_active,
      };
    },
  };
}

/** A timestamp column as ISO 8601 (pg returns Date; be lenient with strings). */
export function toIso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
