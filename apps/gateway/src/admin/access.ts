import type { Knex } from 'knex';
import { iso } from './rows.js';

/** Who may register: anyone (`open`, the default) or only invited owner emails (`invite_only`). */
export type AccessMode = 'open' | 'invite_only';

/** The gateway_settings key of the access mode. */
export const ACCESS_MODE_SETTING = 'access_mode';

/** An invitation of an owner email. */
export interface InviteView {
  readonly email: string;
  readonly invited_by: string;
  readonly created_at: string;
  /** When a registration used it; null while unused. */
  readonly used_at: string | null;
}

interface InviteRow {
  email: string;
  invited_by: string;
  created_at: Date;
  used_at: Date | null;
}

/** The current access mode; `open` when never set. */
export async function getAccessMode(knex: Knex | Knex.Transaction): Promise<AccessMode> {
  const row = (await knex('gateway_settings').where({ key: ACCESS_MODE_SETTING }).first('value')) as
    | { value: unknown }
    | undefined;
  return row?.value === 'invite_only' ? 'invite_only' : 'open';
}

/** Stores the access mode (upsert). */
export async function setAccessMode(trx: Knex.Transaction, mode: AccessMode): Promise<void> {
  await trx('gateway_settings')
    .insert({ key: ACCESS_MODE_SETTING, value: JSON.stringify(mode), updated_at: trx.fn.now() })
    .onConflict('key')
    .merge(['value', 'updated_at']);
}

/**
 * Invites an owner email (already normalized). Inviting an address twice keeps the first invitation
 * (and its `used_at`); `created` says whether this call added it.
 */
export async function inviteOwner(
  trx: Knex.Transaction,
  email: string,
  invitedBy: string,
): Promise<{ invite: InviteView; created: boolean }> {
  const inserted = await trx('access_invites')
    .insert({ email, invited_by: invitedBy })
    .onConflict('email')
    .ignore()
    .returning('email');
  const row = (await trx('access_invites').where({ email }).first()) as InviteRow;
  return { invite: toView(row), created: inserted.length > 0 };
}

/** Every invitation, newest first. */
export async function listInvites(knex: Knex): Promise<InviteView[]> {
  const rows = (await knex('access_invites').orderBy('created_at', 'desc').orderBy('email')) as InviteRow[];
  return rows.map(toView);
}

function toView(row: InviteRow): InviteView {
  return {
    email: row.email,
    invited_by: row.invited_by,
    created_at: iso(row.created_at),
    used_at: iso(row.used_at),
  };
}
