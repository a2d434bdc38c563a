import type { AccessMode } from '@agw/client/admin';
import type { CommandContext } from '../context.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import { colorsFor, formatTime, renderTable, writeJson } from '../output.js';

const MODE_TEXT: Record<AccessMode, string> = {
  open: 'open: anyone may register (operator approval still gates every installation)',
  invite_only: 'invite-only: only invited owner emails may register',
};

/** `agw access show`: the registration mode. */
export async function accessShow(flags: OperatorFlags, context: CommandContext): Promise<void> {
  const client = await operatorClient(flags, context);
  const mode = await withGateway(() => client.getAccessMode());
  if (flags.json) {
    writeJson(context.io, { mode });
    return;
  }
  context.io.stdout(`Access mode: ${MODE_TEXT[mode]}\n`);
}

/** `agw access open` and `agw access invite-only`: sets the registration mode. */
export async function accessSetMode(
  mode: AccessMode,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const change = await withGateway(() => client.setAccessMode(mode));
  if (flags.json) {
    writeJson(context.io, change);
    return;
  }
  context.io.stdout(
    change.changed
      ? `Access mode is now ${MODE_TEXT[mode]} (was ${change.previous_mode}). audit_id ${change.audit_id}\n`
      : `Access mode was already ${mode}; nothing changed.\n`,
  );
}

/** `agw access invite <email>`: lets this owner email register while invite-only. */
export async function accessInvite(
  email: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const result = await withGateway(() => client.invite(email));
  if (flags.json) {
    writeJson(context.io, result);
    return;
  }
  context.io.stdout(
    result.created
      ? `Invited ${result.invite.email}. audit_id ${result.audit_id}\n`
      : `${result.invite.email} was already invited (${formatTime(result.invite.created_at)}).\n`,
  );
}

/** `agw access invites`: every invitation and whether a registration used it. */
export async function accessInvites(flags: OperatorFlags, context: CommandContext): Promise<void> {
  const client = await operatorClient(flags, context);
  const invites = await withGateway(() => client.listInvites());
  if (flags.json) {
    writeJson(context.io, { invites });
    return;
  }
  if (invites.length === 0) {
    context.io.stdout('No invitations.\n');
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const rows = invites.map((invite) => [
    invite.email,
    formatTime(invite.created_at),
    invite.invited_by,
    invite.used_at ? formatTime(invite.used_at) : colors.dim('unused'),
  ]);
  context.io.stdout(renderTable(['EMAIL', 'INVITED', 'BY', 'USED'], rows, colors));
}
