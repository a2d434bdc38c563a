// PostgreSQL crashes while a gateway is under load, stays down for a few seconds and comes back
// (security rules §8.3 #3). A private cluster (its own initdb, port and data dir) is the one stopped,
// so no other test file notices. What a client sees: every answer during the outage is the 503
// `dependency_unavailable` envelope with `retryable: true`, no call waits past the bound, the SAME
// gateway answers 200 again once PostgreSQL is back, and every accepted upload is whole — its
// document, its charge and its audit rows — with nothing half-written by the calls the crash cut off.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GatewayHandle, loadConfig, rollUpCharges, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient } from '../../apps/gateway/test/helpers/access-client.js';
import { approvedInstallation, type GatewayFixture } from '../../apps/gateway/test/helpers/gateway.js';
import { storedKeyFor } from '../../apps/gateway/test/helpers/idempotency-hash.js';
import { sleep } from './helpers/net.js';
import {
  type PostgresCluster,
  postgresBinariesMissing,
  startPostgresCluster,
} from './helpers/postgres-cluster.js';
import { isRetryableEnvelope, type TimedAnswer, timedCall } from './helpers/timed-call.js';

const LOOPS = 8;
/** No call may take longer than this, outage or not. */
const BOUND_MS = 10_000;
const HEALTHY_MS = 1500;
const OUTAGE_MS = 4000;
/** After PostgreSQL accepts connections again, the gateway must answer 200 within this. */
const RECOVERY_BOUND_MS = 15_000;
/** Load keeps running this long after the first 200 that follows the restart. */
const AFTER_MS = 1500;
/** The idempotency lease (apps/gateway/src/idempotency/store.ts). */
const LEASE_MS = 15_000;

interface Recorded extends TimedAnswer {
  readonly kind: 'upload' | 'read';
  readonly idempotencyKey?: string;
  readonly request?: unknown;
}

const noPostgres = postgresBinariesMissing();

describe.skipIf(noPostgres)(`PostgreSQL stopped under load and started again ${noPostgres ?? ''}`, () => {
  let cluster: PostgresCluster;
  let dataDir: string;
  let gateway: GatewayHandle;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    dataDir = await mkdtemp(join(tmpdir(), 'agw-reliability-outage-'));
    gateway = await startGateway(
      loadConfig({
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: cluster.url,
        LOG_LEVEL: process.env.RELIABILITY_LOG_LEVEL ?? 'silent',
        // The load is far above the default limits, which are not what this file tests.
        RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '999999',
        RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '999999',
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await gateway?.close().catch(() => {});
    await cluster?.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 503 retryable during the outage, recovers without restart, loses or doubles nothing', async () => {
    const { key, installationId, organizationId } = await approvedInstallation(
      { client: new AccessClient(gateway.url), knex: gateway.knex } as GatewayFixture,
      '1000',
    );
    const invokeUrl = `${gateway.url}/mcp/invoke`;
    const answers: Recorded[] = [];
    let running = true;
    let counter = 0;

    const loop = async (index: number) => {
      while (running) {
        counter += 1;
        const idempotencyKey = `outage-${index}-${counter}-${Date.now()}`;
        const request = {
          id: 'documents.document.upload',
          params: {
            file_name: `${idempotencyKey}.txt`,
            mime_type: 'text/plain',
            content_base64: Buffer.from(`upload ${idempotencyKey}`).toString('base64'),
          },
          idempotency_key: idempotencyKey,
        };
        const upload = await timedCall(invokeUrl, { key, boundMs: BOUND_MS, body: request });
        answers.push({ ...upload, kind: 'upload', idempotencyKey, request });
        const read = await timedCall(invokeUrl, {
          key,
          boundMs: BOUND_MS,
          body: { id: 'core.org.current.get', params: {} },
        });
        answers.push({ ...read, kind: 'read' });
      }
    };
    const loops = Array.from({ length: LOOPS }, (_, index) => loop(index));

    await sleep(HEALTHY_MS);
    const stopBegan = performance.now();
    await cluster.stop('immediate');
    const stopped = performance.now();
    await sleep(OUTAGE_MS / 2);
    const health = await timedCall(`${gateway.url}/health`, { boundMs: BOUND_MS });
    await sleep(OUTAGE_MS / 2);
    const startBegan = performance.now();
    await cluster.start();
    const started = performance.now();

    // Recovery: the first 200 of each kind among calls sent after PostgreSQL accepted connections again.
    const firstOk = (kind: Recorded['kind']) =>
      answers.find((answer) => answer.kind === kind && answer.startedAt >= started && answer.status === 200);
    while (
      (firstOk('upload') === undefined || firstOk('read') === undefined) &&
      performance.now() - started < RECOVERY_BOUND_MS
    ) {
      await sleep(50);
    }
    await sleep(AFTER_MS);
    running = false;
    await Promise.all(loops);

    const outage = answers.filter((answer) => answer.startedAt >= stopped && answer.endedAt <= startBegan);
    const recovered = Math.max(firstOk('upload')?.endedAt ?? Infinity, firstOk('read')?.endedAt ?? Infinity);
    const figures = {
      calls: answers.length,
      outage_calls: outage.length,
      outage_answer_ms_max: Math.round(
        Math.max(...outage.map((answer) => answer.endedAt - answer.startedAt)),
      ),
      stop_ms: Math.round(stopped - stopBegan),
      start_ms: Math.round(started - startBegan),
      recovery_ms_after_start: Math.round(recovered - started),
      statuses: answers.reduce<Record<string, number>>((counts, answer) => {
        const name = `${answer.status}${answer.json?.error?.code ? ` ${answer.json.error.code}` : ''}`;
        counts[name] = (counts[name] ?? 0) + 1;
        return counts;
      }, {}),
    };
    console.info('postgres-outage figures', JSON.stringify(figures));

    // /health tells a load balancer the instance is not ready while its database is down.
    expect(health.status).toBe(503);
    expect(health.json?.status).toBe('degraded');
    // No call waited past the bound or lost its connection, before, during or after the outage.
    expect(answers.filter((answer) => answer.status === 0)).toEqual([]);
    // Every answer is a success or a clean, retryable envelope.
    const unclean = answers.filter((answer) => answer.status !== 200 && !isRetryableEnvelope(answer));
    expect(unclean.map(({ status, text }) => ({ status, text }))).toEqual([]);
    // While PostgreSQL was down (call sent after the stop, answered before the start) nothing succeeds
    // and every answer says 503 dependency_unavailable with Retry-After.
    expect(outage.length).toBeGreaterThanOrEqual(LOOPS);
    for (const answer of outage) {
      expect(answer.status).toBe(503);
      expect(answer.json.error.code).toBe('dependency_unavailable');
      expect(answer.retryAfter).toBe('5');
    }
    // The same gateway serves again, bounded, and stays healthy.
    expect(recovered - started).toBeLessThan(RECOVERY_BOUND_MS);
    const settled = answers.filter((answer) => answer.startedAt >= recovered + 500);
    expect(settled.length).toBeGreaterThan(0);
    expect(settled.filter((answer) => answer.status !== 200)).toEqual([]);
    expect((await timedCall(`${gateway.url}/health`, { boundMs: BOUND_MS })).status).toBe(200);

    // Every 200 upload: exactly one document, one charge, its audit rows.
    const knex = gateway.knex;
    const accepted = answers.filter((answer) => answer.kind === 'upload' && answer.status === 200);
    expect(accepted.length).toBeGreaterThan(0);
    for (const answer of accepted) {
      const documentId = answer.json.result.document.id as string;
      expect(await knex('documents').where({ id: documentId, organization_id: organizationId })).toHaveLength(
        1,
      );
      const charges = await knex('wallet_ledger').where({
        idempotency_scope: `idempotency:${installationId}:${storedKeyFor(dataDir, answer.idempotencyKey as string)}`,
        kind: 'charge',
      });
      expect(charges).toHaveLength(1);
      // The run's one audit record, its outcome under the key's hash, is the answer's audit_id.
      const run = await knex('audit_events')
        .where({ outcome: 'succeeded' })
        .whereRaw(`details->>'idempotency_key_hash' = ?`, [
          storedKeyFor(dataDir, answer.idempotencyKey as string).slice(0, 16),
        ]);
      expect(run).toHaveLength(1);
      expect(run[0]).toMatchObject({ audit_id: answer.json.audit_id, action: 'capability.invoke' });
    }

    // Nothing half-written: documents, charges and stored answers of uploads match one to one. A call
    // cut off between PostgreSQL's commit and its reply may have committed whole without a 200; it
    // must then be whole too (its key replays it), so compare all three sets, not only the 200s.
    const documents = await knex('documents').where({ organization_id: organizationId }).select('id');
    const charges = await knex('wallet_ledger')
      .where({ organization_id: organizationId, kind: 'charge', capability_id: 'documents.document.upload' })
      .select('idempotency_scope');
    const stored = await knex('idempotency_keys')
      .where({ scope_tenant: organizationId, state: 'completed' })
      .select('idem_key', 'response_body');
    const storedDocuments = stored.map(
      (row) => JSON.parse(Buffer.from(row.response_body).toString('utf8')).result.document.id as string,
    );
    expect(new Set(storedDocuments)).toEqual(new Set(documents.map((row) => row.id)));
    expect(new Set(charges.map((row) => row.idempotency_scope))).toEqual(
      new Set(stored.map((row) => `idempotency:${installationId}:${row.idem_key}`)),
    );
    expect(documents.length).toBeGreaterThanOrEqual(accepted.length);
    expect(documents.length - accepted.length).toBeLessThanOrEqual(LOOPS);

    // The clients of the failed uploads retry with the same key, as the SDK does: each ends with exactly
    // one effect. A claim whose release the outage prevented answers 409 in progress until its lease
    // (15 s) runs out; the first pass retries each once, the second keeps at the few still blocked.
    const retriedAt = performance.now();
    const failed = answers.filter((answer) => answer.kind === 'upload' && answer.status !== 200);
    const final = new Map(accepted.map((answer) => [answer.idempotencyKey as string, answer as TimedAnswer]));
    const retry = (answer: Recorded) =>
      timedCall(invokeUrl, { key, boundMs: BOUND_MS, body: answer.request }).then((retried) => {
        final.set(answer.idempotencyKey as string, retried);
        return retried;
      });
    const queue = [...failed];
    const blocked: Recorded[] = [];
    await Promise.all(
      Array.from({ length: LOOPS }, async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          if ((await retry(next)).status !== 200) blocked.push(next);
        }
      }),
    );
    await Promise.all(
      blocked.map(async (answer) => {
        while (final.get(answer.idempotencyKey as string)?.status !== 200) {
          if (performance.now() - retriedAt > LEASE_MS + 10_000) return;
          await sleep(500);
          await retry(answer);
        }
      }),
    );
    console.info(
      'postgres-outage retries',
      JSON.stringify({
        retried: failed.length,
        blocked_by_dead_claims: blocked.length,
        all_final_ms: Math.round(performance.now() - retriedAt),
      }),
    );
    const uploads = answers.filter((answer) => answer.kind === 'upload');
    expect([...final.values()].filter((answer) => answer.status !== 200)).toEqual([]);
    expect(final.size).toBe(uploads.length);
    expect(await knex('documents').where({ organization_id: organizationId })).toHaveLength(uploads.length);
    for (const answer of uploads) {
      const charges = await knex('wallet_ledger').where({
        idempotency_scope: `idempotency:${installationId}:${storedKeyFor(dataDir, answer.idempotencyKey as string)}`,
        kind: 'charge',
      });
      expect(charges).toHaveLength(1);
    }
    // Every charge folds into the balance exactly once.
    await rollUpCharges(knex);
    const wallet = await knex('wallets').where({ organization_id: organizationId }).first();
    expect(wallet.balance).toBe((1000 - uploads.length * 0.02).toFixed(6));
  }, 120_000);
});
