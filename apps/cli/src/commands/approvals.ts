import type {
  ApprovalPreflight,
  RunApprovalDecision,
  RunApprovalDetail,
  RunApprovalStatus,
} from '@agw/client/admin';
import { approvalStatusText } from '../approval-status.js';
import type { CommandContext } from '../context.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import { type Colors, colorsFor, formatTime, renderFields, renderTable, writeJson } from '../output.js';
import { type ApprovalsWatchFlags, approvalsWatch } from './approvals-watch.js';

/** The states `agw approvals list --status` accepts (`all` lists every state). */
export const RUN_APPROVAL_STATUSES: readonly (RunApprovalStatus | 'all')[] = [
  'pending',
  'approved',
  'denied',
  'expired',
  'all',
];

/** Flags of `agw approvals list`. */
export interface ApprovalsListFlags extends OperatorFlags {
  readonly status?: RunApprovalStatus | 'all' | undefined;
  readonly org?: string | undefined;
}

/** `agw approvals list`: what waits for the operator (pending by default), oldest first. */
export async function approvalsList(flags: ApprovalsWatchFlags, context: CommandContext): Promise<void> {
  if (flags.watch) return approvalsWatch(flags, context);
  const client = await operatorClient(flags, context);
  const approvals = await withGateway(() =>
    client.listApprovals({
      ...(flags.status ? { status: flags.status } : {}),
      ...(flags.org ? { organization: flags.org } : {}),
    }),
  );
  if (flags.json) {
    writeJson(context.io, { approvals });
    return;
  }
  if (approvals.length === 0) {
    const status = flags.status ?? 'pending';
    context.io.stdout(status === 'all' ? 'No approvals.\n' : `No ${status} approvals.\n`);
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const rows = approvals.map((approval) => [
    approval.approval_id,
    approvalStatusText(approval.status, colors),
    `${approval.capability_id}@${approval.capability_version}`,
    approval.organization_id,
    approval.installation_id,
    formatTime(approval.expires_at),
  ]);
  context.io.stdout(
    renderTable(['ID', 'STATUS', 'CAPABILITY', 'ORGANIZATION', 'INSTALLATION', 'EXPIRES'], rows, colors),
  );
}

/**
 * `agw approvals show <id>`: every field of one approval (never its token), its params as the console
 * shows them (secrets masked by the gateway), the estimated cost and the preflight verdict.
 */
export async function approvalsShow(
  id: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const approval = await withGateway(() => client.getApproval(id));
  if (flags.json) {
    writeJson(context.io, { approval });
    return;
  }
  const colors = colorsFor(context.io, context.env);
  context.io.stdout(describeApproval(approval, colors));
  context.io.stdout(describeParams(approval, colors));
}

/** `agw approvals approve <id>`: the agent's token then runs the bound call once (exit 4 if denied/expired). */
export async function approvalsApprove(
  id: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  report(await withGateway(() => client.approveApproval(id)), 'approved', flags, context);
}

/** Flags of `agw approvals deny`. */
export interface ApprovalsDenyFlags extends OperatorFlags {
  readonly reason?: string | undefined;
}

/** `agw approvals deny <id> [--reason]`: the agent's token is then refused with 403. */
export async function approvalsDeny(
  id: string,
  flags: ApprovalsDenyFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  report(await withGateway(() => client.denyApproval(id, flags.reason)), 'denied', flags, context);
}

function report(
  decision: RunApprovalDecision,
  verb: 'approved' | 'denied',
  flags: OperatorFlags,
  context: CommandContext,
): void {
  if (flags.json) {
    writeJson(context.io, decision);
    return;
  }
  const what = `${decision.approval.approval_id} (${decision.approval.capability_id})`;
  context.io.stdout(
    decision.changed
      ? `Approval ${what} ${verb} (was ${decision.previous_status}). audit_id ${decision.audit_id}\n`
      : `Approval ${what} was already ${verb}; nothing changed. audit_id ${decision.audit_id}\n`,
  );
}

function describeApproval(approval: RunApprovalDetail, colors: Colors): string {
  return renderFields(
    [
      ['id', approval.approval_id],
      ['status', approvalStatusText(approval.status, colors)],
      ['capability', `${approval.capability_id}@${approval.capability_version}`],
      ['risk', approval.risk_level ?? 'unknown (no longer in the catalog)'],
      [
        'estimated cost',
        approval.estimated_cost_credits === null ? 'unknown' : `${approval.estimated_cost_credits} credits`,
      ],
      ['preflight', preflightText(approval.preflight, colors)],
      ['params hash', approval.params_hash],
      ['reason', approval.reason],
      ['organization', approval.organization_id],
      ['installation', approval.installation_id],
      ['created', formatTime(approval.created_at)],
      ['expires', formatTime(approval.expires_at)],
      ['decided', formatTime(approval.decided_at)],
      ['ran', formatTime(approval.consumed_at)],
    ],
    colors,
  );
}

const VERDICTS: Record<Exclude<ApprovalPreflight['verdict'], 'violations'>, string> = {
  passes: 'passes (the capability’s own checks find nothing against these params)',
  none: 'none (the capability has no checks beyond its schema)',
  unknown: 'unknown (not pending, no params kept, or the capability version is gone)',
  failed: 'failed (the check itself failed; decide without it)',
};

function preflightText(preflight: ApprovalPreflight, colors: Colors): string {
  if (preflight.verdict === 'violations') {
    const found = preflight.violations.map((v) => `${v.schema_pointer}: ${v.message}`).join('; ');
    return colors.red(`would be refused: ${found}`);
  }
  const text = VERDICTS[preflight.verdict];
  return preflight.verdict === 'passes' ? colors.green(text) : text;
}

/** The params as a labelled table; masked values as the gateway masked them (reveal is a console action). */
function describeParams(approval: RunApprovalDetail, colors: Colors): string {
  if (approval.params === null) {
    return `\nNo params kept for this approval (asked before the gateway kept them); the params hash binds them.\n`;
  }
  const rows = approval.params.map((row) => [row.label, row.masked ? colors.dim(row.value) : row.value]);
  return `\nParams (secrets masked; reveal one in the console):\n${renderTable(['PARAMETER', 'VALUE'], rows, colors)}`;
}
