// Issue 28, finding 9: a call with a valid installation key that is refused before the guard chain
// (an unknown capability, no idempotency key, a malformed body) is audited as that installation, over
// HTTP and over MCP, never with the key; an MCP client's GET /mcp (405) is no failure in the audit.
import { beforeAll, describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { connectMcp } from './helpers/mcp.js';

const gateway = useGateway();
let key: string;
let actor: string;

beforeAll(async () => {
  const installation = await approvedInstallation(gateway);
  key = installation.key;
  actor = `installation:${installation.installationId}`;
});

async function auditRow(auditId: string) {
  const row = await gateway.knex('audit_events').where({ audit_id: auditId }).first();
  expect(row, auditId).toBeDefined();
  return row;
}

describe('audit attribution of refusals before the chain', () => {
  it('names the installation of a valid key over HTTP', async () => {
    const refusals: Array<[path: string, body: unknown, code: string]> = [
      ['/mcp/invoke', { id: 'billing.no_such.thing', params: {} }, 'capability_not_found'],
      ['/mcp/dry_run', { id: 'billing.no_such.thing', params: {} }, 'capability_not_found'],
      ['/mcp/invoke', { id: 'billing.account.save', params: { name: 'x' } }, 'idempotency_key_required'],
      ['/mcp/invoke', { id: 42 }, 'validation_failed'],
      ['/mcp/describe', { id: 'billing.no_such.thing' }, 'capability_not_found'],
    ];
    for (const [path, body, code] of refusals) {
      const answer = await gateway.client.post(path, body, { idem: null, key });
      expect(answer.json.error?.code, path).toBe(code);
      const row = await auditRow(answer.json.error.audit_id);
      expect(row, `${path} ${code}`).toMatchObject({ actor, outcome: 'failed' });
      expect(JSON.stringify(row)).not.toContain(key.split('.')[1]);
    }
  });

  it('stays anonymous without a key', async () => {
    const answer = await gateway.client.post(
      '/mcp/describe',
      { id: 'billing.no_such.thing' },
      { idem: null },
    );
    expect(answer.json.error.code).toBe('capability_not_found');
    expect(await auditRow(answer.json.error.audit_id)).toMatchObject({ actor: 'anonymous' });
  });

  it('names the installation of a valid key over MCP', async () => {
    const client = await connectMcp(gateway.url, key);
    try {
      const result = await client.callTool({
        name: 'invoke',
        arguments: { id: 'billing.no_such.thing', params: {} },
      });
      expect(result.isError).toBe(true);
      const { error } = result.structuredContent as { error: { code: string; audit_id: string } };
      expect(error.code).toBe('capability_not_found');
      expect(await auditRow(error.audit_id)).toMatchObject({ actor, outcome: 'failed' });
    } finally {
      await client.close();
    }
  });
});

describe('GET /mcp', () => {
  it('answers 405 and leaves no failure in the audit', async () => {
    const response = await fetch(new URL('/mcp', gateway.url), {
      headers: { Accept: 'text/event-stream', Authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(405);
    const { error } = await response.json();
    expect(error.code).toBe('method_not_allowed');
    expect(await auditRow(error.audit_id)).toMatchObject({ outcome: 'info', http_status: 405 });
    const failures = await gateway
      .knex('audit_events')
      .where({ outcome: 'failed' })
      .whereRaw("details->>'path' = '/mcp'");
    expect(failures).toEqual([]);
  });
});
