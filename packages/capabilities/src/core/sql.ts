import type { SqlStatement } from '../sql.js';

/** The organization row as the port returns it. */
export interface OrganizationRow {
  readonly id: string;
  readonly name: string;
  readonly short_id: string;
  readonly is_active: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** The organization row (a gateway table; the runtime role may read these columns of its own organization only). */
export const selectOrganization: SqlStatement = {
  name: 'core.organization.select',
  text: 'select id, name, short_id, is_active, created_at, updated_at from organizations where id = $1',
};
