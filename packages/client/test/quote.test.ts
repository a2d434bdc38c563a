/**
 * A price quote (beyond the spec): `quote()` returns dry_run's signed `estimated_cost.quote`, and
 * `invoke(..., { quote })` sends it as the `Agw-Quote` header, leaving the spec's body as it is.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, DryRunInvalidError, type GatewayClient, QuoteNotIssuedError } from '../src/index.js';
import { FakeGateway } from './fake-gateway.js';
import { INSTALLATION_KEY, succeeded } from './fixtures.js';

let gateway: FakeGateway;
let client: GatewayClient;

beforeEach(async () => {
  gateway = await new FakeGateway().start();
  client = createClient({ baseUrl: gateway.url, apiKey: INSTALLATION_KEY });
});
afterEach(() => gateway.close());

const dryRun = (extra: Record<string, unknown>) => ({
  interface_version: '1.0',
  capability_id: 'billing.document.pdf',
  resolved_version: '1.0.0',
  audit_id: '7d7f1f0e-6c1a-4b9a-9f0e-1c2d3e4f5a6b',
  ...extra,
});

describe('quote', () => {
  it('quote() returns the dry run’s quote; invoke({ quote }) sends it as Agw-Quote', async () => {
    const quote = 'agw_q_eyJ2IjoxfQ.c2lnbmF0dXJl';
    gateway.on('POST', '/mcp/dry_run', {
      status: 200,
      body: dryRun({
        valid: true,
        violations: [],
        estimated_cost: {
          amount_max: 0.05,
          currency: 'credits',
          quote,
          quote_expires_at: '2026-03-10T12:15:00.000Z',
        },
      }),
    });
    gateway.on('POST', '/mcp/invoke', { status: 200, body: succeeded('billing.document.pdf', {}) });
    const params = { document_id: '0d9e8f7a-6b5c-4d3e-8f21-a0b1c2d3e4f5' };
    const quoted = await client.quote('billing.document.pdf', params);
    expect(quoted).toEqual({
      quote,
      expires_at: '2026-03-10T12:15:00.000Z',
      amount_max: 0.05,
      audit_id: '7d7f1f0e-6c1a-4b9a-9f0e-1c2d3e4f5a6b',
    });
    expect(gateway.calls('POST', '/mcp/dry_run')[0]?.body).toEqual({ id: 'billing.document.pdf', params });
    await client.invoke('billing.document.pdf', params, { quote: quoted.quote });
    const [sent] = gateway.calls('POST', '/mcp/invoke');
    expect(sent?.headers['agw-quote']).toBe(quote);
    expect(sent?.body).not.toHaveProperty('quote');
  });

  it('a dry run that is not valid throws DryRunInvalidError with its violations', async () => {
    const violation = {
      schema_pointer: '',
      keyword: 'budget',
      code: 'budget_exceeded',
      retry_after_seconds: 60,
    };
    gateway.on('POST', '/mcp/dry_run', {
      status: 200,
      body: dryRun({ valid: false, violations: [violation] }),
    });
    const thrown = await client.quote('billing.document.pdf', { document_id: 'd' }).catch((error) => error);
    expect(DryRunInvalidError.isDryRunInvalidError(thrown)).toBe(true);
    expect(thrown.violations).toEqual([violation]);
  });

  it('a valid dry run without a quote throws QuoteNotIssuedError, not DryRunInvalidError', async () => {
    gateway.on('POST', '/mcp/dry_run', {
      status: 200,
      body: dryRun({
        valid: true,
        violations: [],
        estimated_cost: { amount_max: 0.05, currency: 'credits' },
      }),
    });
    const thrown = await client.quote('billing.document.pdf', { document_id: 'd' }).catch((error) => error);
    expect(QuoteNotIssuedError.isQuoteNotIssuedError(thrown)).toBe(true);
    expect(DryRunInvalidError.isDryRunInvalidError(thrown)).toBe(false);
    expect(thrown).toMatchObject({
      capabilityId: 'billing.document.pdf',
      auditId: '7d7f1f0e-6c1a-4b9a-9f0e-1c2d3e4f5a6b',
    });
    expect(thrown.message).toContain('issued no quote');
  });
});
