import {
  type AgentContext,
  type AgentFlags,
  agentClient,
  requireKey,
  resolveAgentConnection,
} from '../agent-context.js';
import { withGateway } from '../operator-context.js';
import { colorsFor, renderFields, writeJson } from '../output.js';
import { parseParams } from '../params.js';
import { stdinOf } from '../terminal.js';

/** Flags of `agw dry-run`. */
export interface DryRunFlags extends AgentFlags {
  readonly capabilityVersion?: string | undefined;
}

/** `agw dry-run <id> [params]`: POST /mcp/dry_run — validation and simulation, no state change. */
export async function dryRun(
  id: string,
  paramsArgument: string | undefined,
  flags: DryRunFlags,
  context: AgentContext,
): Promise<void> {
  const params = await parseParams(paramsArgument, stdinOf(context));
  const connection = await resolveAgentConnection(flags, context);
  const client = agentClient(connection, context, requireKey(connection));
  const answer = await withGateway(() =>
    client.unchecked.dryRun(id, params, flags.capabilityVersion ? { version: flags.capabilityVersion } : {}),
  );
  if (flags.json) {
    writeJson(context.io, answer);
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const fields: Array<[string, string]> = [
    ['capability', `${answer.capability_id} ${answer.resolved_version}`],
    ['valid', answer.valid ? colors.green('yes') : colors.red('no')],
  ];
  if (answer.estimated_cost)
    fields.push(['estimated cost', `${answer.estimated_cost.amount_max} credits (max)`]);
  // Beyond the spec: `agw invoke --quote` holds the run to that price, for these params, until it expires.
  if (answer.estimated_cost?.quote) {
    fields.push(['quote', answer.estimated_cost.quote]);
    fields.push(['quote expires', String(answer.estimated_cost.quote_expires_at)]);
  }
  if (answer.would_require_approval !== undefined) {
    const reason = answer.approval_reason ? ` (${answer.approval_reason})` : '';
    fields.push(['needs approval', `${answer.would_require_approval ? 'yes' : 'no'}${reason}`]);
  }
  fields.push(['audit_id', answer.audit_id]);
  context.io.stdout(renderFields(fields, colors));
  for (const violation of answer.violations ?? []) {
    context.io.stdout(`  ${colors.red('✗')} ${JSON.stringify(violation)}\n`);
  }
  if (answer.effects?.length) {
    context.io.stdout(`${colors.bold('effects')}\n${JSON.stringify(answer.effects, null, 2)}\n`);
  }
}
