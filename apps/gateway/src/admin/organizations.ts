import type { Knex } from 'knex';
import { GatewayError } from '../http/gateway-error.js';
import { accessStateChanged } from '../keys/state-cache.js';
import { iso } from './rows.js';

/** An organization as the operator sees it. */
export interface OrganizationView {
  readonly id: string;
  readonly name: string;
  readonly short_id: string;
  readonly is_active: boolean;
  readonly created_at: string;
  readonly updated_at: string;
}

interface OrganizationRow {
  id: string;
  name: string;
  short_id: string;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

/**
 * Sets `is_active` (a state set: repeating it changes nothing and reports `changed: false`).
 * An inactive organization's installations get 403 `organization_inactive` on operational calls.
 */
export async function setOrganizationActive(
  trx: Knex.Transaction,
  id: string,
  isActive: boolean,
): Promise<{ organization: OrganizationView; changed: boolean }> {
  const current = (await trx('organizations').where({ id }).forUpdate().first()) as
    | OrganizationRow
    | undefined;
  if (!current) throw new GatewayError('not_found', { message: `No organization with id ${id}.` });
  if (current.is_active === isActive) return { organization: toView(current), changed: false };
  const [updated] = (await trx('organizations')
    .where({ id })
    .update({ is_active: isActive, updated_at: trx.fn.now() })
    .returning('*')) as OrganizationRow[];
  accessStateChanged(trx);
  return { organization: toView(updated ?? current), changed: true };
}

function toView(row: OrganizationRow): OrganizationView {
  return {
    id: row.id,
    name: row.name,
    short_id: row.short_id,
    is_active: row.is_active,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
