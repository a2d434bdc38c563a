import type { Knex } from 'knex';
import { GatewayError } from '../http/gateway-error.js';
import { accessStateChanged } from '../keys/state-cache.js';
import { iso } from './rows.js';

/** The operator's approval state of an installation. */
export type ApprovalStatus = 'pending' | 'approved' | 'blocked';

/** Whether the agent mailbox still has to be verified. */
export type AgentEmailVerification = 'not_required' | 'pending' | 'verified';

/** An installation as the operator sees it (list and show share the shape). */
export interface InstallationView {
  readonly id: string;
  readonly operator_approval_status: ApprovalStatus;
  readonly organization: {
    readonly id: string;
    readonly name: string;
    readonly short_id: string;
    readonly is_active: boolean;
  };
  readonly app: { readonly id: string; readonly slug: string; readonly name: string };
  readonly owner_email: string;
  readonly owner_verified: boolean;
  readonly owner_verified_at: string | null;
  readonly agent_email: string | null;
  readonly agent_email_verification_status: AgentEmailVerification;
  readonly agent_email_verified_at: string | null;
  /** True when the codes approval needs are redeemed (owner, and the agent mailbox when set). */
  readonly ready_for_approval: boolean;
  readonly operator_approved_at: string | null;
  readonly operator_decided_at: string | null;
  readonly operator_decided_by: string | null;
  readonly scopes: readonly string[];
  readonly created_at: string;
  /** Whole seconds since creation, by the database clock. */
  readonly age_seconds: number;
}

export interface InstallationRow {
  id: string;
  operator_approval_status: ApprovalStatus;
  organization_id: string;
  organization_name: string;
  organization_short_id: string;
  organization_is_active: boolean;
  app_id: string;
  app_slug: string;
  app_name: string;
  owner_email: string;
  owner_verified_at: Date | null;
  agent_email: string | null;
  agent_email_verified_at: Date | null;
  operator_approved_at: Date | null;
  operator_decided_at: Date | null;
  operator_decided_by: string | null;
  scopes: string[];
  created_at: Date;
  age_seconds: number | string;
}

export function selectInstallations(knex: Knex | Knex.Transaction) {
  return knex('installations as i')
    .join('organizations as o', 'o.id', 'i.organization_id')
    .join('apps as a', 'a.id', 'i.app_id')
    .select(
      'i.id',
      'i.operator_approval_status',
      'i.organization_id',
      'o.name as organization_name',
      'o.short_id as organization_short_id',
      'o.is_active as organization_is_active',
      'i.app_id',
      'a.slug as app_slug',
      'a.name as app_name',
      'i.owner_email',
      'i.owner_verified_at',
      'i.agent_email',
      'i.agent_email_verified_at',
      'i.operator_approved_at',
      'i.operator_decided_at',
      'i.operator_decided_by',
      'i.scopes',
      'i.created_at',
      knex.raw('floor(extract(epoch from (now() - i.created_at)))::integer as age_seconds'),
    );
}

export function installationView(row: InstallationRow): InstallationView {
  const ownerVerified = row.owner_verified_at !== null;
  const agent: AgentEmailVerification =
    row.agent_email === null ? 'not_required' : row.agent_email_verified_at === null ? 'pending' : 'verified';
  return {
    id: row.id,
    operator_approval_status: row.operator_approval_status,
    organization: {
      id: row.organization_id,
      name: row.organization_name,
      short_id: row.organization_short_id,
      is_active: row.organization_is_active,
    },
    app: { id: row.app_id, slug: row.app_slug, name: row.app_name },
    owner_email: row.owner_email,
    owner_verified: ownerVerified,
    owner_verified_at: iso(row.owner_verified_at),
    agent_email: row.agent_email,
    agent_email_verification_status: agent,
    agent_email_verified_at: iso(row.agent_email_verified_at),
    ready_for_approval: ownerVerified && agent !== 'pending',
    operator_approved_at: iso(row.operator_approved_at),
    operator_decided_at: iso(row.operator_decided_at),
    operator_decided_by: row.operator_decided_by,
    scopes: row.scopes,
    created_at: iso(row.created_at),
    age_seconds: Number(row.age_seconds),
  };
}

/** Installations, oldest first (the queue order), optionally only those in one approval state. */
export async function listInstallations(
  knex: Knex,
  filter: { status?: ApprovalStatus | undefined; limit: number },
): Promise<InstallationView[]> {
  const query = selectInstallations(knex).orderBy('i.created_at', 'asc').orderBy('i.id').limit(filter.limit);
  if (filter.status) query.where('i.operator_approval_status', filter.status);
  return ((await query) as InstallationRow[]).map(installationView);
}

/** One installation, or undefined. */
export async function findInstallation(
  knex: Knex | Knex.Transaction,
  id: string,
): Promise<InstallationView | undefined> {
  const row = (await selectInstallations(knex).where('i.id', id).first()) as InstallationRow | undefined;
  return row ? installationView(row) : undefined;
}

/** What an approve or block did. */
export interface DecisionResult {
  readonly installation: InstallationView;
  readonly previous_status: ApprovalStatus;
  /** False when the installation already was in the requested state (nothing was written). */
  readonly changed: boolean;
}

/**
 * Sets the operator decision on an installation, locking its row for the transaction.
 * Approve requires the owner code redeemed and, when an agent mailbox is set, its code verified:
 * otherwise 409 `conflict` with a hint naming what is missing. Approving or blocking an installation
 * already in that state changes nothing (the call is a state set, hence naturally idempotent).
 * Block clears `operator_approved_at`; approve keeps the original time on a repeat.
 */
export async function decideInstallation(
  trx: Knex.Transaction,
  id: string,
  decision: 'approved' | 'blocked',
  decidedBy: string,
): Promise<DecisionResult> {
  const locked = (await trx('installations').where({ id }).forUpdate().first('id')) as
    | { id: string }
    | undefined;
  const current = locked ? await findInstallation(trx, id) : undefined;
  if (!current) throw installationNotFound(id);
  const previous = current.operator_approval_status;
  if (decision === 'approved' && !current.ready_for_approval) {
    const missing = [
      ...(current.owner_verified ? [] : ['the owner has not redeemed the owner code']),
      ...(current.agent_email_verification_status === 'pending'
        ? ['the agent mailbox code has not been verified']
        : []),
    ];
    throw new GatewayError('conflict', {
      message: `Installation ${id} cannot be approved yet: ${missing.join(' and ')}.`,
      hint: 'Approve once the owner code is claimed and the agent mailbox is verified (when set); `agw installations show <id>` shows both.',
      details: [
        {
          owner_verified: current.owner_verified,
          agent_email_verification_status: current.agent_email_verification_status,
        },
      ],
    });
  }
  if (previous === decision) return { installation: current, previous_status: previous, changed: false };
  await trx('installations')
    .where({ id })
    .update({
      operator_approval_status: decision,
      operator_approved_at: decision === 'approved' ? trx.fn.now() : null,
      operator_decided_at: trx.fn.now(),
      operator_decided_by: decidedBy,
      updated_at: trx.fn.now(),
    });
  accessStateChanged(trx);
  const installation = await findInstallation(trx, id);
  if (!installation) throw installationNotFound(id);
  return { installation, previous_status: previous, changed: true };
}

/**
 * {@link decideInstallation} with the details of its audit row, the admin API's and the console's alike
 * (run it in the transaction that writes the row).
 */
export async function decideInstallationAudited(
  trx: Knex.Transaction,
  id: string,
  decision: 'approved' | 'blocked',
  decidedBy: string,
): Promise<{ result: DecisionResult; details: Record<string, unknown> }> {
  const result = await decideInstallation(trx, id, decision, decidedBy);
  return {
    result,
    details: {
      installation_id: id,
      organization_id: result.installation.organization.id,
      previous_status: result.previous_status,
      status: decision,
      changed: result.changed,
    },
  };
}

/** 404 for an installation id that does not exist. */
export function installationNotFound(id: string): GatewayError {
  return new GatewayError('not_found', { message: `No installation with id ${id}.` });
}
