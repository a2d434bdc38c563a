// MCP and HTTP are one implementation: the tools' input schemas are the ones /mcp/tools and
// /openapi.json publish, and the same calls get the same answers over both (audit ids aside).

import { describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { connectMcp } from './helpers/mcp.js';

const gateway = useGateway();

/** Inlines `#/components/schemas/*` references and drops `$id`, to compare with a plain schema. */
function resolve(node: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => resolve(item, components));
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return resolve(components[ref.slice('#/components/schemas/'.length)], components);
  }
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => key !== '$id')
      .map(([key, value]) => [key, resolve(value, components)]),
  );
}

/** The answer without its audit ids, which are per request by design. */
function withoutAuditIds(answer: unknown): unknown {
  return JSON.parse(JSON.stringify(answer), (key, value) => (key === 'audit_id' ? '<audit>' : value));
}

describe('one source for the tool schemas', () => {
  it('MCP tools/list, /mcp/tools and /openapi.json agree on every input schema', async () => {
    const { key } = await approvedInstallation(gateway);
    const client = await connectMcp(gateway.url, key);
    const { tools } = await client.listTools();
    await client.close();
    const published = (await gateway.client.get('/mcp/tools')).json.tools;
    const openapi = (await gateway.client.get('/openapi.json')).json;
    expect(tools.map((tool) => tool.name)).toEqual(published.map((tool: { name: string }) => tool.name));
    for (const tool of tools) {
      const listed = published.find((entry: { name: string }) => entry.name === tool.name);
      expect(tool.inputSchema).toEqual(listed.input_schema);
      expect(tool.description).toBe(listed.description);
      const body = openapi.paths[`/mcp/${tool.name}`].post.requestBody.content['application/json'].schema;
      expect(resolve(body, openapi.components.schemas)).toEqual(tool.inputSchema);
    }
  });
});

describe('the same calls, the same answers', () => {
  const calls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['search_capabilities', { query: 'organization budget' }],
    ['search_capabilities', { limit: 0 }],
    ['describe', { id: 'wallet.agent_budget.guard.check' }],
    ['describe', { id: 'wallet.agent_budget.guard.chek' }],
    ['dry_run', { id: 'core.org.current.get', params: {} }],
    ['dry_run', { id: 'wallet.agent_budget.guard.check', params: { estimated_cost_credits: 'x' } }],
    ['invoke', { id: 'core.org.current.get', params: {} }],
    ['invoke', { id: 'core.org.current.get', params: { extra: true } }],
    ['invoke', { id: 'no.such.capability', params: {} }],
  ];

  it('gives structuredContent equal to the HTTP body, isError exactly when HTTP says 4xx/5xx', async () => {
    const { key } = await approvedInstallation(gateway, '3');
    const client = await connectMcp(gateway.url, key);
    for (const [name, args] of calls) {
      const http = await gateway.client.post(`/mcp/${name}`, args, { key, idem: null });
      // biome-ignore lint/suspicious/noExplicitAny: compared loosely below.
      const mcp: any = await client.callTool({ name, arguments: args });
      expect(withoutAuditIds(mcp.structuredContent), `${name} ${JSON.stringify(args)}`).toEqual(
        withoutAuditIds(http.json),
      );
      expect(mcp.isError === true, `${name} ${JSON.stringify(args)}`).toBe(http.status >= 400);
    }
    await client.close();
  });

  it('gives an anonymous caller the same answers and refusals as HTTP without a key', async () => {
    const client = await connectMcp(gateway.url);
    for (const [name, args] of calls.slice(0, 6)) {
      const http = await gateway.client.post(`/mcp/${name}`, args, { idem: null });
      // biome-ignore lint/suspicious/noExplicitAny: compared loosely below.
      const mcp: any = await client.callTool({ name, arguments: args });
      expect(withoutAuditIds(mcp.structuredContent)).toEqual(withoutAuditIds(http.json));
      expect(mcp.isError === true).toBe(http.status >= 400);
    }
    await client.close();
  });
});
