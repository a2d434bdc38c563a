import type { AdminInstallation, ApprovalStatus, InstallationDecision } from '@agw/client/admin';
import type { CommandContext } from '../context.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import {
  type Colors,
  colorsFor,
  formatAge,
  formatTime,
  renderFields,
  renderTable,
  writeJson,
} from '../output.js';

/** The approval states `--status` accepts. */
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'blocked'];

/** Flags of `agw installations list`. */
export interface InstallationsListFlags extends OperatorFlags {
  readonly status?: ApprovalStatus | undefined;
}

/** `agw installations list`: the approval queue (oldest first), optionally one status only. */
export async function installationsList(
  flags: InstallationsListFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const installations = await withGateway(() =>
    client.listInstallations(flags.status ? { status: flags.status } : {}),
  );
  if (flags.json) {
    writeJson(context.io, { installations });
    return;
  }
  if (installations.length === 0) {
    context.io.stdout(flags.status ? `No ${flags.status} installations.\n` : 'No installations.\n');
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const rows = installations.map((installation) => [
    installation.id,
    statusText(installation.operator_approval_status, colors),
    `${installation.organization.name}${installation.organization.is_active ? '' : colors.red(' (inactive)')}`,
    installation.app.slug,
    installation.owner_email,
    check(installation.owner_verified, colors),
    installation.agent_email === null
      ? agentText(installation, colors)
      : `${installation.agent_email} (${agentText(installation, colors)})`,
    formatAge(installation.age_seconds),
  ]);
  context.io.stdout(
    renderTable(
      ['ID', 'STATUS', 'ORGANIZATION', 'APP', 'OWNER', 'OWNER OK', 'AGENT MAIL', 'AGE'],
      rows,
      colors,
    ),
  );
}

/** `agw installations show <id>`: every field of one installation. */
export async function installationsShow(
  id: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const installation = await withGateway(() => client.getInstallation(id));
  if (flags.json) {
    writeJson(context.io, { installation });
    return;
  }
  context.io.stdout(describeInstallation(installation, colorsFor(context.io, context.env)));
}

/** `agw installations approve <id>`: refused (exit 4) while a code is unredeemed. */
export async function installationsApprove(
  id: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const decision = await withGateway(() => client.approveInstallation(id));
  reportDecision(decision, 'approved', flags, context);
}

/** `agw installations block <id>`: the installation gets 403 on everything operational. */
export async function installationsBlock(
  id: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const decision = await withGateway(() => client.blockInstallation(id));
  reportDecision(decision, 'blocked', flags, context);
}

function reportDecision(
  decision: InstallationDecision,
  verb: 'approved' | 'blocked',
  flags: OperatorFlags,
  context: CommandContext,
): void {
  if (flags.json) {
    writeJson(context.io, decision);
    return;
  }
  const { installation } = decision;
  const what = `${installation.id} (${installation.app.slug}, ${installation.organization.name})`;
  context.io.stdout(
    decision.changed
      ? `Installation ${what} ${verb} (was ${decision.previous_status}). audit_id ${decision.audit_id}\n`
      : `Installation ${what} was already ${verb}; nothing changed. audit_id ${decision.audit_id}\n`,
  );
}

function describeInstallation(installation: AdminInstallation, colors: Colors): string {
  const organization = installation.organization;
  return renderFields(
    [
      ['id', installation.id],
      ['status', statusText(installation.operator_approval_status, colors)],
      ['ready for approval', installation.ready_for_approval ? 'yes' : 'no'],
      ['organization', `${organization.name} (${organization.short_id}, ${organization.id})`],
      ['organization active', organization.is_active ? 'yes' : colors.red('no')],
      ['app', `${installation.app.slug} — ${installation.app.name} (${installation.app.id})`],
      ['owner email', installation.owner_email],
      [
        'owner verified',
        installation.owner_verified ? `yes, ${formatTime(installation.owner_verified_at)}` : 'no',
      ],
      ['agent email', installation.agent_email ?? '-'],
      ['agent mailbox', agentText(installation, colors)],
      ['scopes', installation.scopes.join(' ') || '-'],
      ['created', `${formatTime(installation.created_at)} (${formatAge(installation.age_seconds)} ago)`],
      ['approved at', formatTime(installation.operator_approved_at)],
      [
        'decided',
        installation.operator_decided_by
          ? `${formatTime(installation.operator_decided_at)} by ${installation.operator_decided_by}`
          : '-',
      ],
    ],
    colors,
  );
}

function statusText(status: ApprovalStatus, colors: Colors): string {
  if (status === 'approved') return colors.green(status);
  if (status === 'blocked') return colors.red(status);
  return colors.yellow(status);
}

function check(value: boolean, colors: Colors): string {
  return value ? colors.green('yes') : colors.yellow('no');
}

function agentText(installation: AdminInstallation, colors: Colors): string {
  const status = installation.agent_email_verification_status;
  if (status === 'not_required') return colors.dim('not required');
  return status === 'verified' ? colors.green('verified') : colors.yellow('pending');
}
