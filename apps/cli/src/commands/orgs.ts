import type { OrganizationChange } from '@agw/client/admin';
import type { CommandContext } from '../context.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import { colorsFor, writeJson } from '../output.js';
import { type PageFlags, pageOf } from '../paging.js';
import { walletTable } from '../wallet-table.js';

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

/** `agw orgs list`: organizations by name with wallet balance, spend, caps and kill switch. */
export async function orgsList(flags: PageFlags & OperatorFlags, context: CommandContext): Promise<void> {
  const page = pageOf(flags);
  const client = await operatorClient(flags, context);
  const listed = await withGateway(() => client.listOrganizations(page));
  if (flags.json) {
    writeJson(context.io, listed);
    return;
  }
  if (listed.organizations.length === 0) {
    context.io.stdout('No organizations.\n');
    return;
  }
  const rows = listed.organizations.map((org) => ({
    organization_id: org.id,
    organization_name: org.name,
    organization_active: org.is_active,
    wallet: org.wallet,
  }));
  context.io.stdout(walletTable(rows, listed.next_cursor, colorsFor(context.io, context.env)));
}
