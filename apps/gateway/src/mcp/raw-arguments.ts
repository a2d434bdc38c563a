import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Finds the `arguments` of a tools/call by its JSON-RPC id. */
export type ToolArgumentsLookup = (id: RequestId) => { readonly found: boolean; readonly value?: unknown };

/** A POST /mcp body split into what the MCP SDK reads and the tools/call arguments it must not touch. */
export interface SeparatedToolArguments {
  /** The body for the SDK: every tools/call's object `arguments` replaced by `{}`. */
  readonly body: string;
  /** The original arguments, as `JSON.parse` read them. */
  readonly lookup: ToolArgumentsLookup;
}

/**
 * Takes the `arguments` of every tools/call out of a POST /mcp body before the MCP SDK sees it, so
 * they reach the meta-tool exactly as `JSON.parse` read them — the parse of the HTTP routes — and are
 * validated only by the gateway's own checks (issue 12, finding 7). The SDK's zod schema copies a
 * record by assignment, which turns a member named `__proto__` into the copy's prototype (the member
 * vanished, so `{"__proto__": …}` passed the closed InvokeRequest over MCP while POST /mcp/invoke refused
 * it), and refuses a record with a `constructor` member as a JSON-RPC internal error. Arguments that are
 * not an object are left in place for the SDK to refuse as invalid params, as before.
 */
export function separateToolArguments(text: string): SeparatedToolArguments {
  const byId = new Map<string, unknown>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the SDK answers a JSON-RPC parse error and no tool runs.
    return { body: text, lookup: () => ({ found: false }) };
  }
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (!isObject(message) || message.method !== 'tools/call') continue;
    const { id, params } = message;
    if ((typeof id !== 'string' && typeof id !== 'number') || !isObject(params)) continue;
    if (!Object.hasOwn(params, 'arguments') || !isObject(params.arguments)) continue;
    byId.set(key(id), params.arguments);
    params.arguments = {};
  }
  return {
    body: byId.size === 0 ? text : JSON.stringify(parsed),
    lookup: (id) => {
      const name = key(id);
      return byId.has(name) ? { found: true, value: byId.get(name) } : { found: false };
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// JSON-RPC ids 1 and "1" are different requests.
const key = (id: RequestId) => `${typeof id}:${String(id)}`;
