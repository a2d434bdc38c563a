import { type AgentContext, type AgentFlags, agentClient, resolveAgentConnection } from '../agent-context.js';
import { withGateway } from '../operator-context.js';
import { colorsFor, renderFields, writeJson } from '../output.js';

/** Flags of `agw describe`. */
export interface DescribeFlags extends AgentFlags {
  readonly capabilityVersion?: string | undefined;
}

/** `agw describe <id>`: POST /mcp/describe — the capability's runtime contract and its schemas. */
export async function describe(id: string, flags: DescribeFlags, context: AgentContext): Promise<void> {
  const connection = await resolveAgentConnection(flags, context);
  const client = agentClient(connection, context, connection.key);
  const description = await withGateway(() =>
    client.unchecked.describe(id, flags.capabilityVersion ? { version: flags.capabilityVersion } : {}),
  );
  if (flags.json) {
    writeJson(context.io, description);
    return;
  }
  const colors = colorsFor(context.io, context.env);
  context.io.stdout(
    renderFields(
      [
        ['id', `${description.id} ${description.version} (${description.status})`],
        ['summary', description.summary],
        ['domain', description.domain],
        ['risk', description.risk_level],
        ['scopes', description.scopes.join(' ') || '-'],
        ['cost', `${description.cost_credits} credits`],
        ['mutating', description.mutating ? 'yes (send an idempotency key)' : 'no'],
        ['dry run', String(description.dry_run)],
        ['long running', description.long_running ? 'yes' : 'no'],
        ['access', description.access ?? 'anonymous view'],
        ['versions', description.available_versions.join(' ')],
      ],
      colors,
    ),
  );
  context.io.stdout(
    `\n${colors.bold('input schema')}\n${JSON.stringify(description.input_schema, null, 2)}\n`,
  );
  context.io.stdout(
    `\n${colors.bold('output schema')}\n${JSON.stringify(description.output_schema, null, 2)}\n`,
  );
}
