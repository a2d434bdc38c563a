// Issue 12, finding 6 (first half): request bodies are decoded as strict UTF-8. Bytes that are not
// UTF-8 used to be replaced by U+FFFD and stored (`a\xff\xfe.txt` became `a��.txt`); now the body is
// refused with 400 `invalid_json` naming the byte offset, on the JSON routes and the MCP endpoint,
// and nothing is stored.

import { invalidUtf8Offset } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { rawRequest } from './helpers/raw-http.js';

const gateway = useGateway();
let key: string;
let organizationId: string;

beforeAll(async () => {
  ({ key, organizationId } = await approvedInstallation(gateway, '1'));
});

/** JSON text with raw bytes 0xFF 0xFE inside a string (not an escape: the bytes themselves). */
function withBadBytes(before: string, after: string): Buffer {
  return Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from([0xff, 0xfe]), Buffer.from(after, 'utf8')]);
}

const send = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
  rawRequest(gateway.url, {
    path,
    headers: {
      'Content-Type': 'application/json',
      'Content-Length': String(body.length),
      Authorization: `Bearer ${key}`,
      'Idempotency-Key': `strict-utf8-${Date.now()}`,
      Connection: 'close',
      ...headers,
    },
    body,
  });

describe('strict UTF-8 request bodies', () => {
  it('an upload whose file_name holds 0xFF 0xFE → 400 invalid_json with the offset; nothing stored', async () => {
    const before =
      '{"id":"documents.document.upload","idempotency_key":"strict-utf8-upload-1","params":{"file_name":"a';
    const body = withBadBytes(before, '.txt","mime_type":"text/plain","content_base64":"aGVsbG8="}}');
    const answer = await send('/mcp/invoke', body);
    expect(answer.status).toBe(400);
    const error = expectEnvelope(JSON.parse(answer.body), 'invalid_json');
    expect(error.message).toBe(`The request body is not valid UTF-8 (byte offset ${before.length}).`);
    const stored = await gateway.knex('documents').where({ organization_id: organizationId });
    expect(stored).toHaveLength(0);
  });

  it('the same on dry_run, an access route and the MCP endpoint', async () => {
    const dryRun = withBadBytes('{"id":"core.org.current.get","params":{"x":"', '"}}');
    expectEnvelope(JSON.parse((await send('/mcp/dry_run', dryRun)).body), 'invalid_json');
    const register = withBadBytes('{"owner_email":"o@example.com","app":{"slug":"s","name":"', '"}}');
    const registered = await send('/register', register, { Authorization: '' });
    expect(registered.status).toBe(400);
    expectEnvelope(JSON.parse(registered.body), 'invalid_json');
    expect(await gateway.knex('apps').where({ owner_email: 'o@example.com' })).toHaveLength(0);
    const mcp = withBadBytes(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_capabilities","arguments":{"query":"',
      '"}}}',
    );
    const answer = await send('/mcp', mcp, { Accept: 'application/json, text/event-stream' });
    expect(answer.status).toBe(400);
    expectEnvelope(JSON.parse(answer.body), 'invalid_json');
  });

  it('well-formed multi-byte text still passes (é, €, 𝄞)', async () => {
    const answer = await gateway.client.post(
      '/mcp/search_capabilities',
      { query: 'é € 𝄞 organization' },
      { idem: null },
    );
    expect(answer.status).toBe(200);
  });
});

describe('invalidUtf8Offset', () => {
  it.each([
    ['plain ASCII', [0x61, 0x62], -1],
    ['é, €, 𝄞', [...Buffer.from('é€𝄞')], -1],
    ['a lone continuation byte', [0x61, 0x80], 1],
    ['0xFF', [0x61, 0x62, 0xff], 2],
    ['an overlong "/" (C0 AF)', [0xc0, 0xaf], 0],
    ['an overlong 3-byte form (E0 80 AF)', [0xe0, 0x80, 0xaf], 0],
    ['a UTF-16 surrogate (ED A0 80)', [0x61, 0xed, 0xa0, 0x80], 1],
    ['above U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80], 0],
    ['a truncated sequence at the end', [0x61, 0xe2, 0x82], 1],
  ])('%s', (_name, bytes, offset) => {
    expect(invalidUtf8Offset(Uint8Array.from(bytes))).toBe(offset);
  });
});
