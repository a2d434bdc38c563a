// Egress over real HTTP: a handler's `fetch` reaches a loopback server that EGRESS_ALLOWED_HOSTS lists and
// the contract declares; a URL outside that list is refused mid-run (403 egress_denied, audited as the
// run's outcome, nothing charged); a contract declaring a host the gateway does not allow is refused
// before its handler runs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GuardDenied } from '@agw/guard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from './helpers/access-client.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

let upstream: Server;
let upstreamHits = 0;
let port = 0;
const handlerRuns: string[] = [];

const anyParams = { type: 'object', properties: {}, additionalProperties: false };

/** A read test capability that declares `egress` and fetches `url()` through the handler's fetch. */
function fetching(id: string, egress: readonly string[], url: () => string) {
  return demoCapability({ id, cost_credits: '0.5', egress, input_schema: anyParams }, async (_input, ctx) => {
    handlerRuns.push(id);
    const response = await ctx.fetch(url());
    return response.json();
  });
}

const gateway = useGateway({
  ...withCapabilities(
    fetching('demo.rates.fetch', ['127.0.0.1'], () => `http://127.0.0.1:${port}/rates`),
    fetching('demo.rates.sneak', ['127.0.0.1'], () => `http://localhost:${port}/rates`),
    fetching('demo.rates.elsewhere', ['api.example.com'], () => 'https://api.example.com/rates'),
    // A handler built on the guard package refusing with a denial of its own (its hint and wait included).
    demoCapability({ id: 'demo.rates.throttled', input_schema: anyParams }, async () => {
      throw new GuardDenied({
        code: 'egress_denied',
        message: 'The rates host refused this organization.',
        hint: 'Ask the operator to allow the rates host for this organization.',
        retryAfterSeconds: 7,
        details: [{ host: 'rates.example.com' }],
      });
    }),
  ),
  env: { EGRESS_ALLOWED_HOSTS: '127.0.0.1', EGRESS_ALLOW_HTTP: 'true' },
});

let key: string;
let organizationId: string;
beforeAll(async () => {
  upstream = createServer((_request, response) => {
    upstreamHits += 1;
    response.setHeader('Content-Type', 'application/json');
    response.end(JSON.stringify({ eur_usd: '1.08' }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as AddressInfo).port;

  ({ key, organizationId } = await approvedInstallation(gateway, '10'));
});
afterAll(async () => {
  await new Promise((resolve) => upstream?.close(resolve));
});

const invoke = (id: string): Promise<Answer> =>
  gateway.client.post('/mcp/invoke', { id, params: {} }, { idem: null, key });
const charges = async () =>
  (await gateway.knex('wallet_ledger').where({ organization_id: organizationId, kind: 'charge' })).length;

describe('egress', () => {
  it('reaches an allow-listed, declared host and charges the run', async () => {
    const answer = await invoke('demo.rates.fetch');
    expect(answer.status).toBe(200);
    expect(answer.json.result).toEqual({ eur_usd: '1.08' });
    expect(upstreamHits).toBe(1);
    expect(await charges()).toBe(1);
  });

  it('refuses a URL outside the declared hosts mid-run: 403 egress_denied, audited, not charged', async () => {
    const hitsBefore = upstreamHits;
    const answer = await invoke('demo.rates.sneak');
    expect(answer.status).toBe(403);
    const error = expectEnvelope(answer.json, 'egress_denied');
    expect(error.details).toEqual([{ host: 'localhost' }]);
    expect(upstreamHits).toBe(hitsBefore);
    expect(await charges()).toBe(1);
    const audit = await gateway.knex('audit_events').where({ audit_id: error.audit_id }).first();
    expect(audit).toMatchObject({ outcome: 'failed', http_status: 403 });
    expect(audit.details).toMatchObject({ reason_code: 'egress_denied' });
  });

  it('refuses a capability whose declared host is not allow-listed before its handler runs', async () => {
    const answer = await invoke('demo.rates.elsewhere');
    expect(answer.status).toBe(403);
    const error = expectEnvelope(answer.json, 'egress_denied');
    expect(error.details).toEqual([{ host: 'api.example.com' }]);
    expect(handlerRuns).not.toContain('demo.rates.elsewhere');
    expect(await charges()).toBe(1);
  });

  it("answers a handler's own denial like the chain's: its hint and retry_after_seconds kept", async () => {
    const answer = await invoke('demo.rates.throttled');
    expect(answer.status).toBe(403);
    const error = expectEnvelope(answer.json, 'egress_denied');
    expect(error).toMatchObject({
      message: 'The rates host refused this organization.',
      hint: 'Ask the operator to allow the rates host for this organization.',
      retry_after_seconds: 7,
      details: [{ host: 'rates.example.com' }],
    });
  });
});
