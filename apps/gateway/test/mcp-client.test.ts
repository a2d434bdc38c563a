// /mcp with the official SDK Client and StreamableHTTPClientTransport against a real gateway: the tool
// list per caller, search → describe → dry_run → invoke with and without a key, an idempotent replay,
// bad params and unknown tools, an invalid key, and MCP calls audited with transport `mcp`.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration } from './helpers/access-client.js';
import { demoStamp, demoVault, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';
import { connectMcp, rawMcp } from './helpers/mcp.js';

// A paid test mutation proves replays over MCP; the risky one, approvals.
const gateway = useGateway(withCapabilities(demoStamp, demoVault));
let anonymous: Client;
let keyed: Client;
let key: string;
let organizationId: string;

beforeAll(async () => {
  ({ key, organizationId } = await approvedInstallation(gateway, '2'));
  anonymous = await connectMcp(gateway.url);
  keyed = await connectMcp(gateway.url, key);
});

afterAll(async () => {
  await anonymous?.close();
  await keyed?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: tests read results loosely and validate them with schemas.
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  return client.callTool({ name, arguments: args });
}

describe('initialize and tools/list', () => {
  it('names the server and offers tools only', () => {
    expect(anonymous.getServerVersion()).toMatchObject({ name: 'agent-gateway' });
    expect(anonymous.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    expect(anonymous.getInstructions()).toMatch(/search_capabilities/);
  });

  it('shows an anonymous caller only the tools it can call, a keyed caller all four', async () => {
    expect((await anonymous.listTools()).tools.map((tool) => tool.name)).toEqual([
      'search_capabilities',
      'describe',
    ]);
    const { tools } = await keyed.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search_capabilities', 'describe', 'dry_run', 'invoke']);
    expect(tools.find((tool) => tool.name === 'invoke')?.annotations).toMatchObject({ readOnlyHint: false });
  });
});

describe('search → describe → dry_run → invoke', () => {
  it('works anonymously for search and describe; dry_run and invoke are 401 tool errors', async () => {
    const found = await call(anonymous, 'search_capabilities', { query: 'organization' });
    expect(found.isError).toBeFalsy();
    expectSchema('SearchCapabilitiesResponse', found.structuredContent);
    expect(found.structuredContent.results[0]).toMatchObject({
      id: 'core.org.current.get',
      access: 'allowed',
    });
    expect(JSON.parse(found.content[0].text.split('\n').slice(1).join('\n'))).toEqual(
      found.structuredContent,
    );

    const described = await call(anonymous, 'describe', { id: 'core.org.current.get' });
    expectSchema('CapabilityDescription', described.structuredContent);

    for (const name of ['dry_run', 'invoke']) {
      const refused = await call(anonymous, name, { id: 'core.org.current.get', params: {} });
      expect(refused.isError).toBe(true);
      const error = expectEnvelope(refused.structuredContent, 'unauthenticated');
      expect(error.hint).toMatch(/Bearer/);
      expect(refused.content[0].text).toMatch(/^unauthenticated: /);
    }
  });

  it('answers the 401 tool error with a Bearer challenge on the HTTP response', async () => {
    const answer = await rawMcp(
      gateway.url,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'invoke', arguments: { id: 'core.org.current.get', params: {} } },
      },
      { 'MCP-Protocol-Version': '2025-06-18' },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="agent-gateway"');
    expect(answer.json.result.isError).toBe(true);
    expectEnvelope(answer.json.result.structuredContent, 'unauthenticated');
  });

  it('runs the whole sequence with a key, each answer the spec object', async () => {
    const found = await call(keyed, 'search_capabilities', { query: 'budget' });
    expect(found.structuredContent.results.map((item: { id: string }) => item.id)).toContain(
      'wallet.agent_budget.guard.check',
    );
    const described = await call(keyed, 'describe', { id: 'wallet.agent_budget.guard.check' });
    expect(described.structuredContent).toMatchObject({ id: 'wallet.agent_budget.guard.check' });

    const simulated = await call(keyed, 'dry_run', { id: 'core.org.current.get', params: {} });
    expect(simulated.isError).toBeFalsy();
    expectSchema('DryRunResponse', simulated.structuredContent);
    expect(simulated.structuredContent).toMatchObject({ valid: true, would_require_approval: false });

    const checked = await call(keyed, 'invoke', {
      id: 'wallet.agent_budget.guard.check',
      params: { capability_id: 'core.org.current.get', estimated_cost_credits: 0 },
    });
    expectSchema('InvokeResponse', checked.structuredContent);
    expect(checked.structuredContent.result).toMatchObject({ allowed: true, wallet_balance_credits: '2' });

    const invoked = await call(keyed, 'invoke', { id: 'core.org.current.get', params: {} });
    expect(invoked.isError).toBeFalsy();
    expect(invoked.structuredContent).toMatchObject({
      status: 'succeeded',
      capability_id: 'core.org.current.get',
      result: { organization: { id: organizationId } },
    });
    expect(invoked.content[0].text).toMatch(/^core\.org\.current\.get@1\.0\.0: succeeded\./);
  });

  it('audits MCP calls like HTTP calls, with transport mcp', async () => {
    const invoked = await call(keyed, 'invoke', { id: 'core.org.current.get', params: {} });
    const row = await gateway
      .knex('audit_events')
      .where({ audit_id: invoked.structuredContent.audit_id })
      .first();
    expect(row).toMatchObject({ action: 'capability.invoke', outcome: 'succeeded', http_status: 200 });
    const details = typeof row.details === 'string' ? JSON.parse(row.details) : row.details;
    expect(details).toMatchObject({ transport: 'mcp', target_id: 'core.org.current.get' });

    const http = await gateway.client.post(
      '/mcp/invoke',
      { id: 'core.org.current.get', params: {} },
      { key, idem: null },
    );
    const httpRow = await gateway.knex('audit_events').where({ audit_id: http.json.audit_id }).first();
    const httpDetails = typeof httpRow.details === 'string' ? JSON.parse(httpRow.details) : httpRow.details;
    expect(httpDetails.transport).toBe('http');

    const refused = await call(keyed, 'describe', { id: 'Not An Id' });
    const failed = await gateway
      .knex('audit_events')
      .where({ audit_id: refused.structuredContent.error.audit_id })
      .first();
    expect(failed).toMatchObject({ action: 'mcp.tools_call', outcome: 'failed', http_status: 400 });
  });
});

describe('idempotency', () => {
  it('runs a mutation once per idempotency_key; the replay is flagged, other params are refused', async () => {
    const args = {
      id: 'demo.stamp.create',
      params: { label: 'first' },
      idempotency_key: 'mcp-stamp-000000001',
    };
    const first = await call(keyed, 'invoke', args);
    expect(first.structuredContent).toMatchObject({ status: 'succeeded', cost: { credits: '0.5' } });
    const replay = await call(keyed, 'invoke', args);
    expect(replay.isError).toBeFalsy();
    expect(replay.structuredContent).toEqual({ ...first.structuredContent, replayed: true });
    expect(replay.content[0].text).toMatch(/succeeded \(replayed\)/);
    const ledger = await gateway.knex('wallet_ledger').where({ organization_id: organizationId });
    expect(ledger).toHaveLength(1);

    const reused = await call(keyed, 'invoke', { ...args, params: { label: 'other' } });
    expect(reused.isError).toBe(true);
    expectEnvelope(reused.structuredContent, 'idempotency_key_reused');
  });

  it('needs an idempotency_key for a mutation', async () => {
    const missing = await call(keyed, 'invoke', { id: 'demo.stamp.create', params: { label: 'x' } });
    expect(missing.isError).toBe(true);
    expectEnvelope(missing.structuredContent, 'idempotency_key_required');
  });
});

describe('approvals and budgets', () => {
  it('answers a high-risk invoke pending_approval (not an error), then runs it once with the token', async () => {
    const pending = await call(keyed, 'invoke', { id: 'demo.vault.open', params: {} });
    expect(pending.isError).toBeFalsy();
    expectSchema('InvokeResponse', pending.structuredContent);
    expect(pending.structuredContent).toMatchObject({
      status: 'pending_approval',
      approval: { status: 'pending', approval_token: expect.any(String) },
    });
    expect(pending.content[0].text).toMatch(/pending_approval/);

    // The operator approves (in the table, as invoke-mutations.test.ts does); the token runs it once.
    await gateway
      .knex('approvals')
      .where({ approval_id: pending.structuredContent.approval.approval_id })
      .update({ status: 'approved' });
    const args = {
      id: 'demo.vault.open',
      params: {},
      approval_token: pending.structuredContent.approval.approval_token,
    };
    const approved = await call(keyed, 'invoke', args);
    expect(approved.structuredContent).toMatchObject({ status: 'succeeded', result: { opened: true } });
    const again = await call(keyed, 'invoke', args);
    expect(again.isError).toBe(true);
    expectEnvelope(again.structuredContent, 'approval_invalid');
  });

  it('refuses a paid mutation above the balance with a budget_exceeded tool error naming the cap', async () => {
    const poor = await approvedInstallation(gateway, '0.2');
    const client = await connectMcp(gateway.url, poor.key);
    const refused = await call(client, 'invoke', {
      id: 'demo.stamp.create',
      params: { label: 'too dear' },
      idempotency_key: 'mcp-stamp-poor-000001',
    });
    await client.close();
    expect(refused.isError).toBe(true);
    const error = expectEnvelope(refused.structuredContent, 'budget_exceeded');
    expect((error.details as Record<string, unknown>[])[0]).toMatchObject({ cap: 'balance' });
  });
});

describe('bad calls', () => {
  it('answers params that break the capability schema: dry_run valid false, invoke a tool error', async () => {
    const simulated = await call(keyed, 'dry_run', { id: 'demo.stamp.create', params: { label: '' } });
    expect(simulated.isError).toBeFalsy();
    expect(simulated.structuredContent.valid).toBe(false);
    expect(simulated.structuredContent.violations[0].schema_pointer).toBe('/params/label');
    const invoked = await call(keyed, 'invoke', {
      id: 'demo.stamp.create',
      params: { label: '' },
      idempotency_key: 'mcp-stamp-000000002',
    });
    expect(invoked.isError).toBe(true);
    const error = expectEnvelope(invoked.structuredContent, 'validation_failed');
    expect(error.schema_pointer).toBe('/params/label');
  });

  it('answers arguments that break the meta-tool schema with a validation_failed tool error', async () => {
    const refused = await call(keyed, 'search_capabilities', { limit: 500 });
    expect(refused.isError).toBe(true);
    const error = expectEnvelope(refused.structuredContent, 'validation_failed');
    expect(JSON.stringify(error)).toMatch(/\/limit/);
    const unknown = await call(anonymous, 'describe', { id: 'core.org.current.gte' });
    const notFound = expectEnvelope(unknown.structuredContent, 'capability_not_found');
    expect(notFound.hint).toMatch(/core\.org\.current\.get/);
  });

  it('answers an unknown tool with a JSON-RPC invalid-params error', async () => {
    const failure = await keyed
      .callTool({ name: 'delete_everything', arguments: {} })
      .catch((error) => error);
    expect(failure).toBeInstanceOf(McpError);
    expect(failure.code).toBe(ErrorCode.InvalidParams);
    expect(failure.message).toMatch(/Unknown tool/);
  });

  it('refuses an invalid key at the HTTP level: 401 with a Bearer challenge', async () => {
    const failure = await connectMcp(gateway.url, 'agw_ak_nope.nope').catch((error) => error);
    expect(failure).toBeInstanceOf(StreamableHTTPError);
    expect(failure.code).toBe(401);
    const answer = await rawMcp(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { Authorization: 'Bearer agw_ak_nope.nope', 'MCP-Protocol-Version': '2025-06-18' },
    );
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="agent-gateway", error="invalid_token"/,
    );
    expectEnvelope(answer.json, 'invalid_api_key');
  });

  it('refuses a bootstrap key with 403 and no challenge', async () => {
    const registered = await gateway.client.post('/register', registration());
    const answer = await rawMcp(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {
        Authorization: `Bearer ${registered.json.bootstrap_key.token}`,
        'MCP-Protocol-Version': '2025-06-18',
      },
    );
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toBeNull();
    expectEnvelope(answer.json, 'forbidden');
  });
});
