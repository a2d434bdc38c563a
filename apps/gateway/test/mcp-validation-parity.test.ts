// Issue 12, finding 7: MCP tools/call arguments go through exactly the validation of the HTTP routes.
// Each bad body below is sent as POST /mcp/dry_run and /mcp/invoke and as the `arguments` of an MCP
// tools/call of the same tool; both must refuse it with the same code, pointer and details. The bodies
// are JSON text, not objects: `{"__proto__": …}` only exists as an own member when JSON.parse reads it.
// Before the fix a top-level "__proto__" was refused over HTTP and accepted over MCP (the SDK's copy of
// the arguments turned it into a prototype), and a budget check of 1e308 credits was a 500 on both.

import { describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { rawMcp } from './helpers/mcp.js';

const gateway = useGateway();

const UPLOAD = '"mime_type":"text/plain","content_base64":"aGVsbG8="';
const BUDGET = 'wallet.agent_budget.guard.check';

/** [what, body without the invoke-only members, expected schema_pointer]. */
const cases: ReadonlyArray<readonly [string, string, string]> = [
  [
    'top-level __proto__',
    '{"id":"core.org.current.get","params":{},"__proto__":{"polluted":true}}',
    '/__proto__',
  ],
  ['top-level __proto__ (a number)', '{"id":"core.org.current.get","params":{},"__proto__":1}', '/__proto__'],
  [
    'top-level constructor',
    '{"id":"core.org.current.get","params":{},"constructor":{"x":1}}',
    '/constructor',
  ],
  [
    '__proto__ in params',
    '{"id":"core.org.current.get","params":{"__proto__":{"a":1}}}',
    '/params/__proto__',
  ],
  ['unknown field in params', '{"id":"core.org.current.get","params":{"extra":true}}', '/params/extra'],
  ['wrong type of id', '{"id":5,"params":{}}', '/id'],
  ['wrong type of params', '{"id":"core.org.current.get","params":[]}', '/params'],
  [
    'NUL in a string',
    `{"id":"documents.document.upload","params":{"file_name":"a\\u0000b.txt",${UPLOAD}}}`,
    '/params/file_name',
  ],
  [
    'bidi override in file_name',
    `{"id":"documents.document.upload","params":{"file_name":"invoice\\u202efdp.exe",${UPLOAD}}}`,
    '/params/file_name',
  ],
  [
    'look-alike slash in file_name',
    `{"id":"documents.document.upload","params":{"file_name":"etc\\u2215passwd",${UPLOAD}}}`,
    '/params/file_name',
  ],
  [
    '1e308 credits',
    `{"id":"${BUDGET}","params":{"capability_id":"core.org.current.get","estimated_cost_credits":1e308}}`,
    '/params/estimated_cost_credits',
  ],
  [
    '7 decimals of credits',
    `{"id":"${BUDGET}","params":{"capability_id":"core.org.current.get","estimated_cost_credits":0.1234567}}`,
    '/params/estimated_cost_credits',
  ],
];

/** An invoke body gets an idempotency key, so a mutating capability reaches the schema guard. */
function bodyFor(tool: 'dry_run' | 'invoke', body: string, n: number): string {
  if (tool === 'dry_run') return body;
  return `{"idempotency_key":"parity-case-${String(n).padStart(8, '0')}",${body.slice(1)}`;
}

/** The answer without its audit ids, which are per request by design. */
function withoutAuditIds(answer: unknown): unknown {
  return JSON.parse(JSON.stringify(answer ?? null), (key, value) => (key === 'audit_id' ? '<audit>' : value));
}

/**
 * Where the answer points: the envelope's `schema_pointer` of a refusal (400 `validation_failed`), or
 * for dry_run params that break the capability's schema, the first violation of its 200 `valid: false`.
 */
function refusedAt(answer: {
  error?: { code?: unknown; schema_pointer?: unknown };
  valid?: unknown;
  violations?: Array<{ schema_pointer?: unknown }>;
}): unknown {
  if (answer.error !== undefined)
    return `${String(answer.error.code)} at ${String(answer.error.schema_pointer)}`;
  return answer.valid === false ? `invalid at ${String(answer.violations?.[0]?.schema_pointer)}` : 'accepted';
}

describe('MCP tools/call and the HTTP routes refuse the same bodies alike', () => {
  it.each(['dry_run', 'invoke'] as const)('%s', async (tool) => {
    const { key } = await approvedInstallation(gateway, '100');
    let n = 0;
    for (const [what, template, pointer] of cases) {
      n += 1;
      const body = bodyFor(tool, template, n);
      const http = await gateway.client.post(`/mcp/${tool}`, body, { key, idem: null });
      const mcp = await rawMcp(
        gateway.url,
        `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"${tool}","arguments":${body}}}`,
        { Authorization: `Bearer ${key}` },
      );
      const label = `${tool}: ${what} → ${mcp.text.slice(0, 300)}`;
      const expected =
        http.status === 200 && tool === 'dry_run'
          ? `invalid at ${pointer}`
          : `validation_failed at ${pointer}`;
      expect(refusedAt(http.json), label).toBe(expected);
      expect(http.status === 400 || (tool === 'dry_run' && http.status === 200), label).toBe(true);
      expect(mcp.status, label).toBe(200);
      expect(mcp.json?.result?.isError === true, label).toBe(http.status >= 400);
      // The same code, pointer, message and details: the same validation ran.
      expect(withoutAuditIds(mcp.json?.result?.structuredContent), label).toEqual(withoutAuditIds(http.json));
    }
  });

  it('a valid budget check at the bound succeeds on both transports', async () => {
    const { key } = await approvedInstallation(gateway, '100');
    const args = {
      id: BUDGET,
      params: { capability_id: 'core.org.current.get', estimated_cost_credits: 1e12 },
    };
    const http = await gateway.client.post('/mcp/invoke', args, { key, idem: null });
    const mcp = await rawMcp(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'invoke', arguments: args } },
      { Authorization: `Bearer ${key}` },
    );
    expect(http.status).toBe(200);
    expect(http.json.result).toMatchObject({ allowed: false, estimated_cost_credits: 1e12 });
    expect(mcp.json.result.isError).toBeFalsy();
    expect(mcp.json.result.structuredContent.result).toEqual(http.json.result);
  });
});
