// Prometheus metrics (issue 30): with METRICS_PORT set, a listener of its own serves /metrics with the
// invokes per capability and outcome, the guards' refusals, the credits charged, the requests per route
// template, the handler's and the statements' latency, the machinery's backlogs and Node's own metrics;
// labels hold catalog ids, codes and templates only. The main port has no /metrics: an agent's key reads
// nothing there.
import { rollUpCharges, sealAuditChain } from '@agw/gateway';
import { describe, expect, it } from 'vitest';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope, parseJsonOrUndefined } from './helpers/http.js';
import { holdRollUpLock } from './helpers/ledger.js';
import { sampleOf } from './helpers/prometheus-text.js';

const paid = demoCapability({ id: 'demo.metrics.paid', cost_credits: '0.5' }, async () => ({ ok: true }));
const gateway = useGateway({
  ...withCapabilities(paid),
  // The sealer waits (its longest interval) until a test seals: the audit backlog stays put meanwhile.
  env: { METRICS_PORT: '0', ANALYTICS_EVENTS_PER_MINUTE: '1', AUDIT_SEAL_INTERVAL_MS: '60000' },
});

async function call(tool: 'invoke' | 'dry_run', key: string, body: object) {
  const response = await fetch(`${gateway.url}/mcp/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: parseJsonOrUndefined(await response.text()) as never };
}

async function scrape(): Promise<string> {
  const response = await fetch(`${gateway.gateway.metricsUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

describe('GET /metrics on METRICS_PORT', () => {
  it('counts invokes per capability and outcome, refusals per guard and code, credits, requests and handler time', async () => {
    const funded = await approvedInstallation(gateway, '10');
    const broke = await approvedInstallation(gateway, '0');
    const free = { id: 'core.org.current.get', params: {} };
    expect((await call('invoke', funded.key, free)).status).toBe(200);
    expect((await call('invoke', funded.key, free)).status).toBe(200);
    expect((await call('invoke', funded.key, { id: 'demo.metrics.paid', params: {} })).status).toBe(200);
    const refusedByBilling = await call('invoke', broke.key, { id: 'demo.metrics.paid', params: {} });
    expect(refusedByBilling.status).toBe(403);
    const billingCode = (refusedByBilling.json as { error: { code: string } }).error.code;
    const refusedBySchema = await call('invoke', funded.key, { id: free.id, params: { nope: 1 } });
    expect(refusedBySchema.status).toBe(400);
    const unknown = await call('invoke', funded.key, { id: 'no.such.capability', params: {} });
    expect(unknown.status).toBe(404);
    expect((await call('dry_run', funded.key, free)).status).toBe(200);

    const text = await scrape();
    const version = paid.contract.version;
    const calls = (labels: Record<string, string>) => sampleOf(text, 'agw_meta_tool_calls_total', labels);
    expect(calls({ tool: 'invoke', capability: free.id, outcome: 'succeeded' })).toBe(2);
    expect(calls({ tool: 'invoke', capability: 'demo.metrics.paid', version, outcome: 'succeeded' })).toBe(1);
    expect(calls({ tool: 'invoke', capability: 'demo.metrics.paid', outcome: billingCode })).toBe(1);
    expect(calls({ tool: 'invoke', capability: free.id, outcome: 'validation_failed' })).toBe(1);
    // The caller's text is no label: an id the catalog lacks is `unknown`.
    expect(calls({ tool: 'invoke', capability: 'unknown', outcome: 'capability_not_found' })).toBe(1);
    expect(text).not.toContain('no.such.capability');
    expect(calls({ tool: 'dry_run', capability: free.id, outcome: 'valid' })).toBe(1);

    const refusals = (labels: Record<string, string>) => sampleOf(text, 'agw_guard_refusals_total', labels);
    expect(refusals({ guard: 'schema', code: 'validation_failed' })).toBe(1);
    expect(refusals({ guard: 'billing', code: billingCode })).toBe(1);
    expect(sampleOf(text, 'agw_credits_charged_total', { capability: 'demo.metrics.paid' })).toBe(0.5);

    expect(sampleOf(text, 'agw_invoke_duration_seconds_count', { capability: free.id })).toBe(3);
    // The handler ran for the two succeeded free reads only (the schema refused the third).
    expect(sampleOf(text, 'agw_handler_duration_seconds_count', { capability: free.id })).toBe(2);
    const requests = { method: 'POST', route: '/mcp/invoke' };
    expect(
      sampleOf(text, 'agw_http_request_duration_seconds_count', { ...requests, status_class: '2xx' }),
    ).toBe(3);
    expect(
      sampleOf(text, 'agw_http_request_duration_seconds_count', { ...requests, status_class: '4xx' }),
    ).toBe(3);
    expect(sampleOf(text, 'agw_db_statement_duration_seconds_count', {})).toBeGreaterThan(0);

    // No organization, installation or key reaches a label.
    for (const secret of [funded.organizationId, funded.installationId, funded.key.split('.')[0] as string]) {
      expect(text).not.toContain(secret);
    }
  });

  it('reads the machinery at scrape time: pool, audit sealer, outbox, jobs, analytics writer, Node', async () => {
    // A public route's 429 (one event per address and minute here) is counted by its template.
    const events = () => fetch(`${gateway.url}/a/events`, { method: 'POST', body: '{}' });
    await events();
    expect((await events()).status).toBe(429);
    const text = await scrape();
    expect(sampleOf(text, 'agw_public_rate_limited_total', { route: '/a/events' })).toBe(1);
    for (const name of [
      'agw_db_pool_connections_in_use',
      'agw_db_pool_waiting_requests',
      'agw_audit_unsealed_rows',
      'agw_audit_sealer_lag_seconds',
      'agw_wallet_charges_unrolled',
      'agw_charge_rollup_lag_seconds',
      'agw_mail_outbox_queued_messages',
      'agw_mail_outbox_failed_messages',
      'agw_mail_outbox_oldest_queued_age_seconds',
      'agw_jobs_queued',
      'agw_jobs_running',
      'agw_jobs_oldest_queued_age_seconds',
      'agw_analytics_events_queued',
      'agw_analytics_events_dropped_total',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(sampleOf(text, name, {}), name).toBeGreaterThanOrEqual(0);
    }
    // Onboarding queued owner mails (the dev mailbox sends them soon after).
    expect(text).not.toContain('agw_metrics_backlog_failures_total 1');
  });

  it('counts the audit rows the sealer has yet to chain and the age of the oldest, 0 once sealed', async () => {
    const { key } = await approvedInstallation(gateway);
    expect((await call('invoke', key, { id: 'core.org.current.get', params: {} })).status).toBe(200);
    const waiting = await scrape();
    expect(sampleOf(waiting, 'agw_audit_unsealed_rows', {})).toBeGreaterThanOrEqual(1);
    expect(sampleOf(waiting, 'agw_audit_sealer_lag_seconds', {})).toBeGreaterThan(0);

    // Polled: scrapes close together share one reading, and background work may write another row.
    await expect
      .poll(
        async () => {
          await sealAuditChain(gateway.knex);
          const sealed = await scrape();
          return [
            sampleOf(sealed, 'agw_audit_unsealed_rows', {}),
            sampleOf(sealed, 'agw_audit_sealer_lag_seconds', {}),
          ];
        },
        { timeout: 10_000 },
      )
      .toEqual([0, 0]);
  });

  // PostgreSQL only: the test holds the roll-up's lock in a transaction of its own, so the gateway's
  // periodic roll-up skips its turns; on PGlite that transaction would hold the one session.
  it.runIf(process.env.DATABASE_URL)(
    'counts the charges the roll-up has yet to fold in and the age of the oldest, 0 once rolled up',
    async () => {
      const funded = await approvedInstallation(gateway, '10');
      const lock = await holdRollUpLock(gateway.knex);
      expect((await call('invoke', funded.key, { id: 'demo.metrics.paid', params: {} })).status).toBe(200);
      // Polled: a scrape within half a second of another shares its reading.
      await expect
        .poll(async () => {
          const waiting = await scrape();
          return [
            (sampleOf(waiting, 'agw_wallet_charges_unrolled', {}) ?? 0) >= 1,
            (sampleOf(waiting, 'agw_charge_rollup_lag_seconds', {}) ?? 0) > 0,
          ];
        })
        .toEqual([true, true]);
      await lock.release();

      await expect
        .poll(
          async () => {
            await rollUpCharges(gateway.knex);
            const rolled = await scrape();
            return [
              sampleOf(rolled, 'agw_wallet_charges_unrolled', {}),
              sampleOf(rolled, 'agw_charge_rollup_lag_seconds', {}),
            ];
          },
          { timeout: 10_000 },
        )
        .toEqual([0, 0]);
    },
  );

  it('answers anything but GET /metrics with the error envelope', async () => {
    const other = await fetch(`${gateway.gateway.metricsUrl}/health`);
    expect(other.status).toBe(404);
    expectEnvelope(await other.json(), 'not_found');
    const post = await fetch(`${gateway.gateway.metricsUrl}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expectEnvelope(await post.json(), 'method_not_allowed');
  });
});

describe('the main port', () => {
  it('has no /metrics: an agent key reads nothing there', async () => {
    const { key } = await approvedInstallation(gateway);
    const response = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(404);
    const text = await response.text();
    expectEnvelope(JSON.parse(text), 'not_found');
    expect(text).not.toContain('agw_');
  });
});
