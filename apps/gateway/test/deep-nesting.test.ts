// Issue 26, finding 5 (with a key): a free-form object nested ten thousand deep (25 KB of text) was a
// 500 on dry_run and invoke, over HTTP and MCP alike: the canonical JSON behind the audit and idempotency
// hashes ran out of stack. Every request body now nests at most MAX_JSON_DEPTH levels, checked right
// after parsing, and a deeper one is refused with 400 validation_failed pointing at the first value too
// deep: the same answer on every transport. A body at the bound is served as before.

import { MAX_JSON_DEPTH } from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { rawMcp } from './helpers/mcp.js';

const gateway = useGateway();

/** `{"a":{"a":…1…}}` with `levels` objects. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** An invoke or dry_run body whose free-form member `member` holds `levels` nested objects. */
function bodyWith(tool: 'dry_run' | 'invoke', capability: string, params: string, levels: number, n: number) {
  const key = tool === 'invoke' ? `"idempotency_key":"deep-nesting-${String(n).padStart(8, '0')}",` : '';
  return `{${key}"id":"${capability}","params":{${params}${nested(levels)}}}`;
}

/** The answer without its audit ids, which are per request by design. */
const withoutAuditIds = (answer: unknown) =>
  JSON.parse(JSON.stringify(answer ?? null), (key, value) => (key === 'audit_id' ? '<audit>' : value));

// The body is level 1, params 2, the free-form member 3: its first object too deep is this many `a`s in.
const tooDeepAt = (member: string) => `/params/${member}${'/a'.repeat(MAX_JSON_DEPTH - 2)}`;

const cases = [
  ['assist.artifact.save', '"title":"Deep","content":"x","metadata":', 'metadata'],
  ['calendar.booking_link.manage', '"action":"create","context":', 'context'],
] as const;

describe('a body nested deeper than the bound', () => {
  it.each(cases)(
    '%s: 400 validation_failed at the first value too deep, over HTTP and MCP',
    async (id, params, member) => {
      const { key } = await approvedInstallation(gateway, '100');
      let n = 0;
      for (const tool of ['dry_run', 'invoke'] as const) {
        for (const levels of [10_000, MAX_JSON_DEPTH - 1]) {
          n += 1;
          const body = bodyWith(tool, id, params, levels, n);
          const label = `${tool} ${levels} levels`;
          const http = await gateway.client.post(`/mcp/${tool}`, body, { key, idem: null });
          expect(http.status, label).toBe(400);
          const error = expectEnvelope(http.json, 'validation_failed');
          expect(error.schema_pointer, label).toBe(tooDeepAt(member));
          expect(error.details, label).toEqual([
            {
              schema_pointer: tooDeepAt(member),
              keyword: 'maxDepth',
              message: expect.stringContaining(`${MAX_JSON_DEPTH} levels`),
            },
          ]);
          const mcp = await rawMcp(
            gateway.url,
            `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"${tool}","arguments":${body}}}`,
            { Authorization: `Bearer ${key}` },
          );
          expect(mcp.status, label).toBe(200);
          expect(mcp.json?.result?.isError, label).toBe(true);
          expect(withoutAuditIds(mcp.json?.result?.structuredContent), label).toEqual(
            withoutAuditIds(http.json),
          );
        }
      }
    },
  );

  it('an artifact whose metadata reaches the bound is saved and read back whole', async () => {
    const { key } = await approvedInstallation(gateway, '100');
    const body = bodyWith(
      'invoke',
      'assist.artifact.save',
      '"title":"Deep","content":"x","metadata":',
      MAX_JSON_DEPTH - 2,
      1,
    );
    const saved = await gateway.client.post('/mcp/invoke', body, { key, idem: null });
    expect(saved.status, saved.text).toBe(200);
    expect(JSON.stringify(saved.json.result.artifact.metadata)).toBe(nested(MAX_JSON_DEPTH - 2));
  });
});
