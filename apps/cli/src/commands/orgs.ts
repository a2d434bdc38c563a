import type { OrganizationChange } from '@agw/client/admin';
import type { CommandContext } from '../context.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import { writeJson } from '../output.js';

/** `agw orgs activate <org-id>`: the organization's installations may work again. */
export async function orgsActivate(id: string, flags: OperatorFlags, context: CommandContext): Promise<void> {
  const client = await operatorClient(flags, context);
  report(await withGateway(() => client.activateOrganization(id)), flags, context);
}

/** `agw orgs deactivate <org-id>`: its installations get 403 `organization_inactive`. */
export async function orgsDeactivate(
  id: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  report(await withGateway(() => client.deactivateOrganization(id)), flags, context);
}

function report(change: OrganizationChange, flags: OperatorFlags, context: CommandContext): void {
  if (flags.json) {
    writeJson(context.io, change);
    return;
  }
  const { organization } = change;
  const state = organization.is_active ? 'active' : 'inactive';
  context.io.stdout(
    change.changed
      ? `Organization ${organization.name} (${organization.id}) is now ${state}. audit_id ${change.audit_id}\n`
      : `Organization ${organization.name} (${organization.id}) was already ${state}; nothing changed.\n`,
  );
}
