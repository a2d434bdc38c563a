// Finished jobs are deleted once they are older than JOB_RETENTION_HOURS (by finished_at, on the
// database clock); a swept job then answers exactly like an unknown one (404 `not_found`), while a
// fresh finished job and every queued or running job stay, however old.
import { randomUUID } from 'node:crypto';
import { CapabilityError } from '@agw/capabilities';
import { describe, expect, it } from 'vitest';
import type { Answer } from './helpers/access-client.js';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

const finish = demoCapability<{ fail: boolean }, { done: true }>(
  {
    id: 'test.retention.finish',
    summary: 'Finishes at once, or fails when asked (test capability).',
    scopes: ['core:read'],
    cost_credits: '0.01',
    mutating: true,
    long_running: true,
    input_schema: {
      type: 'object',
      properties: { fail: { type: 'boolean' } },
      required: ['fail'],
      additionalProperties: false,
    },
  },
  async (input) => {
    if (input.fail) throw new CapabilityError('conflict', 'Refused on purpose.');
    return { done: true };
  },
);
const { handlers, catalog } = withCapabilities(finish);

/** Polls `probe` every 20 ms until it returns a value; fails after `ms`. */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`not within ${ms} ms: ${what}`);
}

describe('the retention sweep of finished jobs (JOB_RETENTION_HOURS=48)', () => {
  const gateway = useGateway({
    env: { JOB_RETENTION_HOURS: '48' },
    handlers,
    catalog,
    jobs: { pollIntervalMs: 50, sweepIntervalMs: 50 },
  });

  /** Invokes the test capability and waits until its job is final; returns the job id. */
  async function finishedJob(key: string, fail: boolean): Promise<string> {
    const accepted = await gateway.client.post(
      '/mcp/invoke',
      { id: finish.contract.id, params: { fail }, idempotency_key: `retention-${randomUUID()}` },
      { idem: null, key },
    );
    expect(accepted.json.status).toBe('accepted');
    const url: string = accepted.json.poll.url;
    await eventually(async () => {
      const answer = await gateway.client.get(url, key);
      return answer.status === 200 && answer.json.status === 'accepted' ? undefined : answer;
    }, `job ${url} finishes`);
    return accepted.json.poll.job_id;
  }

  const poll = (key: string, id: string): Promise<Answer> => gateway.client.get(`/mcp/jobs/${id}`, key);
  const ago = (hours: number) => gateway.knex.raw(`now() - make_interval(hours => ?)`, [hours]);

  it('deletes finished jobs past the retention, which then answer 404 like an unknown job; keeps the rest', async () => {
    const { key } = await approvedInstallation(gateway, '10');
    const oldSucceeded = await finishedJob(key, false);
    const oldFailed = await finishedJob(key, true);
    const recent = await finishedJob(key, false);
    expect((await poll(key, oldFailed)).status).toBe(409);

    // A job still waiting for its retry and one another process is running, both accepted a month
    // ago and untouched since: not finished, so never swept.
    const sample = await gateway.knex('invoke_jobs').where({ id: recent }).first();
    const unfinished = {
      organization_id: sample.organization_id,
      installation_id: sample.installation_id,
      capability_id: sample.capability_id,
      capability_version: sample.capability_version,
      params: JSON.stringify(sample.params),
      run_state: JSON.stringify(sample.run_state),
      max_attempts: 3,
      accepted_audit_id: sample.accepted_audit_id,
      created_at: ago(720),
      updated_at: ago(720),
    };
    const queued = randomUUID();
    const running = randomUUID();
    await gateway.knex('invoke_jobs').insert([
      {
        ...unfinished,
        id: queued,
        status: 'queued',
        attempts: 1,
        available_at: gateway.knex.raw("now() + interval '1 hour'"),
      },
      {
        ...unfinished,
        id: running,
        status: 'running',
        attempts: 1,
        available_at: ago(720),
        started_at: ago(720),
        lease_owner: 'worker:elsewhere',
        lease_expires_at: gateway.knex.raw("now() + interval '1 hour'"),
      },
    ]);
    await gateway
      .knex('invoke_jobs')
      .whereIn('id', [oldSucceeded, oldFailed])
      .update({ finished_at: ago(49) });
    await gateway
      .knex('invoke_jobs')
      .where({ id: recent })
      .update({ finished_at: ago(47) });

    const swept = await eventually(async () => {
      const answer = await poll(key, oldSucceeded);
      return answer.status === 404 ? answer : undefined;
    }, 'the job finished 49 h ago is swept');
    const unknown = await poll(key, randomUUID());
    const sweptError = expectEnvelope(swept.json, 'not_found');
    const unknownError = expectEnvelope(unknown.json, 'not_found');
    expect({ ...sweptError, audit_id: '' }).toEqual({ ...unknownError, audit_id: '' });
    expect((await poll(key, oldFailed)).status).toBe(404);

    const kept = await poll(key, recent);
    expect(kept.status).toBe(200);
    expect(kept.json).toMatchObject({ status: 'succeeded', result: { done: true } });
    expect((await poll(key, queued)).json).toMatchObject({
      status: 'accepted',
      poll: { job_status: 'queued' },
    });
    expect((await poll(key, running)).json).toMatchObject({
      status: 'accepted',
      poll: { job_status: 'running' },
    });
    expect(await gateway.knex('invoke_jobs').whereIn('id', [oldSucceeded, oldFailed])).toEqual([]);
  });
});
