import type { OrganizationChange, OrganizationSummary } from '@agw/client/admin';
import type { CommandContext } from '../context.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import { colorsFor, renderTable, writeJson } from '../output.js';

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

/** Flags of `agw orgs list` and `agw wallets list`: one page, from `--cursor` on. */
export interface PageFlags extends OperatorFlags {
  readonly limit?: string | undefined;
  readonly cursor?: string | undefined;
}

/** The page request of `flags` (the gateway checks the bounds: a limit from 1 to 500). */
export function pageOf(flags: PageFlags): { limit?: number; cursor?: string } {
  return {
    ...(flags.limit === undefined ? {} : { limit: Number(flags.limit) }),
    ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
  };
}

/** The line after a table that has a next page: the command that shows it. */
export function nextPageHint(command: string, cursor: string | null): string {
  return cursor === null ? '' : `More: ${command} --cursor ${cursor}\n`;
}

/** A cap as a cell: `-` when there is none. */
export function capCell(cap: string | null): string {
  return cap ?? '-';
}

/** `agw orgs list`: organizations by name with wallet balance, spend today, caps and kill switch. */
export async function orgsList(flags: PageFlags, context: CommandContext): Promise<void> {
  const client = await operatorClient(flags, context);
  const page = await withGateway(() => client.listOrganizations(pageOf(flags)));
  if (flags.json) {
    writeJson(context.io, page);
    return;
  }
  if (page.organizations.length === 0) {
    context.io.stdout('No organizations.\n');
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const rows = page.organizations.map((org: OrganizationSummary) => [
    org.id,
    org.name,
    org.is_active ? 'active' : colors.red('inactive'),
    org.wallet.balance_credits,
    org.wallet.spent.today_credits,
    capCell(org.wallet.policy.daily_cap_credits),
    capCell(org.wallet.policy.monthly_cap_credits),
    org.wallet.policy.kill_switch_enabled ? colors.red('on') : 'off',
  ]);
  context.io.stdout(
    renderTable(
      ['ID', 'NAME', 'STATE', 'BALANCE', 'SPENT TODAY', 'DAILY CAP', 'MONTHLY CAP', 'KILL SWITCH'],
      rows,
      colors,
    ) + nextPageHint('agw orgs list', page.next_cursor),
  );
}
