// How a meta-tool answer becomes an MCP tool result, for answers the default catalog cannot provoke
// on demand: a 429 with retry_after_seconds (answered or thrown), a handler fault (no internals shown)
// and a non-error status such as 202. The tools here build their answers with the same functions the
// real ones use (errorAnswer, GatewayError).

import { callMetaTool, createLogger, errorAnswer, GatewayError } from '@agw/gateway';
import { describe, expect, it } from 'vitest';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import { connectMcp } from './helpers/mcp.js';

const gateway = useGateway();
const http = {
  headers: { 'user-agent': 'test' },
  ip: '127.0.0.1',
  state: { requestId: 'mcp-tool-call-test', log: createLogger({ level: 'silent' }) },
};

async function auditDetails(auditId: string) {
  const row = await gateway.knex('audit_events').where({ audit_id: auditId }).first();
  return { row, details: typeof row.details === 'string' ? JSON.parse(row.details) : row.details };
}

describe('refusals become tool errors', () => {
  it('a rate-limited answer keeps retry_after_seconds in the envelope', async () => {
    const outcome = await callMetaTool(
      gateway.knex,
      'invoke',
      async (call) =>
        errorAnswer(
          new GatewayError('rate_limited', { message: 'Too many invokes.', retryAfterSeconds: 7 }),
          call.auditId,
        ),
      { id: 'core.org.current.get', params: {} },
      http,
    );
    expect(outcome.errorCode).toBe('rate_limited');
    expect(outcome.result.isError).toBe(true);
    const error = expectEnvelope(outcome.result.structuredContent, 'rate_limited');
    expect(error).toMatchObject({ retry_after_seconds: 7, retryable: true });
    expect((outcome.result.content[0] as { text: string }).text).toMatch(/^rate_limited: Too many invokes\./);
  });

  it('a thrown 429 is the same envelope, audited with transport mcp', async () => {
    const outcome = await callMetaTool(
      gateway.knex,
      'dry_run',
      async () => {
        throw new GatewayError('rate_limited', { message: 'Slow down.', retryAfterSeconds: 3 });
      },
      {},
      http,
    );
    const error = expectEnvelope(outcome.result.structuredContent, 'rate_limited');
    expect(error.retry_after_seconds).toBe(3);
    const { row, details } = await auditDetails(error.audit_id as string);
    expect(row).toMatchObject({ action: 'mcp.tools_call', outcome: 'failed', http_status: 429 });
    expect(details).toEqual({ code: 'rate_limited', tool: 'dry_run', transport: 'mcp' });
  });

  it('a fault is internal_error without the thrown message', async () => {
    const outcome = await callMetaTool(
      gateway.knex,
      'invoke',
      async () => {
        throw new Error('connection string postgres://secret@db');
      },
      {},
      http,
    );
    const error = expectEnvelope(outcome.result.structuredContent, 'internal_error');
    expect(error.message).toBe('An unexpected error occurred.');
    expect(JSON.stringify(outcome.result)).not.toMatch(/secret/);
  });
});

describe('answers', () => {
  it('a tool that answers no JSON object is an internal_error tool error, not a crash', async () => {
    const outcome = await callMetaTool(
      gateway.knex,
      'describe',
      async () => ({ status: 200, body: 'null' }),
      {},
      http,
    );
    expect(outcome.result.isError).toBe(true);
    expectEnvelope(outcome.result.structuredContent, 'internal_error');
  });

  it('a non-error status (202) is a result, not a tool error; a missing arguments object is {}', async () => {
    let seen: unknown;
    const outcome = await callMetaTool(
      gateway.knex,
      'invoke',
      async (call) => {
        seen = call.body;
        return {
          status: 202,
          body: { status: 'accepted', capability_id: 'x.y.z', resolved_version: '1.0.0' },
        };
      },
      undefined,
      http,
    );
    expect(seen).toEqual({});
    expect(outcome.result.isError).toBeUndefined();
    expect(outcome.result.structuredContent).toMatchObject({ status: 'accepted' });
  });
});

describe('discovery', () => {
  it('/mcp/manifest names the endpoint the official client connects to', async () => {
    const manifest = (await gateway.client.get('/mcp/manifest')).json;
    expect(manifest.transport.streamable_http).toBe('/mcp');
    const client = await connectMcp(gateway.url);
    expect(client.getServerVersion()?.name).toBe(manifest.name);
    await client.close();
  });
});
