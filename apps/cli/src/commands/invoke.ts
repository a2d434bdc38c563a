import {
  type AgentContext,
  type AgentFlags,
  agentClient,
  requireKey,
  resolveAgentConnection,
} from '../agent-context.js';
import { checkOutTarget, type OutFlags, reportOut, withoutBase64, writeOut } from '../binary-result.js';
import { withGateway } from '../operator-context.js';
import { colorsFor, renderFields, writeJson } from '../output.js';
import { parseParams } from '../params.js';
import { stdinOf } from '../terminal.js';

/** Flags of `agw invoke`. */
export interface InvokeFlags extends AgentFlags, OutFlags {
  readonly capabilityVersion?: string | undefined;
  readonly idempotencyKey?: string | undefined;
  readonly approvalToken?: string | undefined;
  /** A price quote from `agw dry-run`, sent as `Agw-Quote`: the run costs at most the quoted amount. */
  readonly quote?: string | undefined;
}

/**
 * `agw invoke <id> [params]`: POST /mcp/invoke. The SDK sends an idempotency key (yours, or a fresh one
 * kept across its retries); pass the same `--idempotency-key` to repeat a call safely.
 */
export async function invoke(
  id: string,
  paramsArgument: string | undefined,
  flags: InvokeFlags,
  context: AgentContext,
): Promise<void> {
  const params = await parseParams(paramsArgument, stdinOf(context));
  await checkOutTarget(flags, context.io);
  const connection = await resolveAgentConnection(flags, context);
  const client = agentClient(connection, context, requireKey(connection));
  const answer = await withGateway(() =>
    client.unchecked.invoke(id, params, {
      ...(flags.capabilityVersion ? { version: flags.capabilityVersion } : {}),
      ...(flags.idempotencyKey ? { idempotencyKey: flags.idempotencyKey } : {}),
      ...(flags.approvalToken ? { approvalToken: flags.approvalToken } : {}),
      ...(flags.quote ? { quote: flags.quote } : {}),
    }),
  );
  const written = await writeOut(answer, flags, context.io);
  // With `--out -` stdout holds the bytes: everything else goes to stderr.
  const io = flags.out === '-' ? { ...context.io, stdout: context.io.stderr, isTTY: false } : context.io;
  if (flags.json) {
    writeJson(io, answer);
    reportOut(answer, written, flags, io);
    return;
  }
  const colors = colorsFor(io, context.env);
  const status = answer.status === 'succeeded' ? colors.green(answer.status) : colors.yellow(answer.status);
  const fields: Array<[string, string]> = [
    ['capability', `${answer.capability_id} ${answer.resolved_version}`],
    ['status', `${status}${answer.replayed ? ' (replayed)' : ''}`],
  ];
  if (answer.cost) fields.push(['cost', `${answer.cost.credits} credits`]);
  fields.push(['audit_id', answer.audit_id]);
  io.stdout(renderFields(fields, colors));
  for (const warning of answer.warnings ?? []) io.stderr(`warning: ${warning}\n`);
  if (answer.status === 'pending_approval') {
    io.stdout(
      `\nA human must approve this call; then run it again with --approval-token <token> and the same params.\n${JSON.stringify(answer.approval ?? {}, null, 2)}\n`,
    );
  } else if (answer.status === 'accepted') {
    io.stdout(`\nStill running; poll:\n${JSON.stringify(answer.poll ?? {}, null, 2)}\n`);
  } else {
    // Base64 is for programs (--json); a person sees its size and how to get the file.
    io.stdout(`\n${JSON.stringify(withoutBase64(answer.result ?? null, written), null, 2)}\n`);
  }
  reportOut(answer, written, flags, io);
}
