import type { Installation, OrganizationDetails } from '@agw/contracts';
import { toIso } from '../keys/key-store.js';

/** An `installations` row. */
export interface InstallationRow {
  readonly id: string;
  readonly organization_id: string;
  readonly owner_email: string;
  readonly owner_user_id: string;
  readonly sb_user_id: string;
  readonly agent_email: string | null;
  readonly owner_verified_at: Date | null;
  readonly agent_email_verified_at: Date | null;
  readonly operator_approval_status: 'pending' | 'approved' | 'blocked';
  readonly operator_approved_at: Date | null;
  readonly scopes: string[];
}

/** An `organizations` row. */
export interface OrganizationRow {
  readonly id: string;
  readonly name: string;
  readonly short_id: string;
  readonly is_active: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
}

const iso = (value: Date | null) => (value === null ? null : toIso(value));

/** The wire Installation; `operator_approved_at` appears once the operator approved. */
export function installationView(row: InstallationRow): Installation {
  return {
    id: row.id,
    agent_email: row.agent_email,
    agent_email_verified_at: iso(row.agent_email_verified_at),
    agent_email_verification_status:
      row.agent_email === null
        ? 'not_required'
        : row.agent_email_verified_at === null
          ? 'pending'
          : 'verified',
    owner_email: row.owner_email,
    owner_user_id: row.owner_user_id,
    owner_verified_at: iso(row.owner_verified_at),
    operator_approval_status: row.operator_approval_status,
    ...(row.operator_approved_at === null ? {} : { operator_approved_at: toIso(row.operator_approved_at) }),
    scopes: [...row.scopes],
  };
}

/** The wire OrganizationDetails (GET /org/current). */
export function organizationView(row: OrganizationRow): OrganizationDetails {
  return {
    id: row.id,
    name: row.name,
    short_id: row.short_id,
    is_active: row.is_active,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}
