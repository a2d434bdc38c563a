import type { SearchCapabilitiesRequest } from '@agw/contracts';
import { type AgentContext, type AgentFlags, agentClient, resolveAgentConnection } from '../agent-context.js';
import { withGateway } from '../operator-context.js';
import { colorsFor, nextPageHint, renderTable, writeJson } from '../output.js';
import { parseLimit } from '../paging.js';

/** The risk levels `--risk-max` accepts, lowest first. */
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;

/** Flags of `agw search`. */
export interface SearchFlags extends AgentFlags {
  readonly domain?: string | undefined;
  readonly riskMax?: (typeof RISK_LEVELS)[number] | undefined;
  readonly limit?: string | undefined;
  readonly cursor?: string | undefined;
}

/**
 * `agw search [query]`: POST /mcp/search_capabilities. Uses the profile's key when there is one (the
 * answer then says whether this installation may use each hit), anonymous otherwise.
 */
export async function search(
  query: string | undefined,
  flags: SearchFlags,
  context: AgentContext,
): Promise<void> {
  const request: SearchCapabilitiesRequest = {
    ...(query ? { query } : {}),
    ...(flags.domain ? { domain: flags.domain } : {}),
    ...(flags.riskMax ? { risk_level_max: flags.riskMax } : {}),
    ...(flags.limit === undefined ? {} : { limit: parseLimit(flags.limit, 50) }),
    ...(flags.cursor ? { cursor: flags.cursor } : {}),
  };
  const connection = await resolveAgentConnection(flags, context);
  const client = agentClient(connection, context, connection.key);
  const found = await withGateway(() => client.searchCapabilities(request));
  if (flags.json) {
    writeJson(context.io, found);
    return;
  }
  if (found.results.length === 0) {
    context.io.stdout('No capabilities match.\n');
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const rows = found.results.map((hit) => [
    hit.id,
    hit.version,
    hit.risk_level,
    hit.access === 'allowed' ? colors.green(hit.access) : colors.yellow(hit.access),
    hit.summary,
  ]);
  context.io.stdout(renderTable(['ID', 'VERSION', 'RISK', 'ACCESS', 'SUMMARY'], rows, colors));
  context.io.stdout(colors.dim(`${found.results.length} of ${found.total}\n`));
  context.io.stdout(nextPageHint(found.next_cursor, colors));
}
