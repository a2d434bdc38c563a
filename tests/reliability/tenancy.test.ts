// Tenancy: organization B creates everything an agent can (an upload, a pending approval of a high-risk
// capability, a long-running job, idempotency keys on invoke and on an access route); organization A
// then names every id and key of B it can. Each answer must be indistinguishable from the answer for a
// random id (same status, code and message once the id itself is masked), and no answer carries B's data.
import { randomUUID } from 'node:crypto';
import { createValidator } from '@agw/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../apps/gateway/test/helpers/access-client.js';
import { demoCapability, withCapabilities } from '../../apps/gateway/test/helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from '../../apps/gateway/test/helpers/gateway.js';
import { waitUntil } from '../../apps/gateway/test/helpers/mail-sink.js';

// A high-risk capability (every run waits for an operator approval) and a long-running one (a job).
const vault = demoCapability<{ door?: string }, { opened: string }>(
  {
    id: 'tenancy.vault.open',
    risk_level: 'high',
    input_schema: { type: 'object', properties: { door: { type: 'string' } }, additionalProperties: false },
  },
  async (input) => ({ opened: input.door ?? 'main' }),
);
const job = demoCapability<{ label: string }, { label: string }>(
  {
    id: 'tenancy.job.run',
    mutating: true,
    long_running: true,
    input_schema: {
      type: 'object',
      properties: { label: { type: 'string' } },
      required: ['label'],
      additionalProperties: false,
    },
  },
  async (input) => ({ label: input.label }),
);
// Handler SQL that forgets the organization filter: row-level security scopes it all the same.
const listAll = demoCapability<Record<string, never>, { documents: string[]; organizations: string[] }>(
  { id: 'tenancy.documents.list_all' },
  async (_input, ctx) => {
    const documents = await ctx.sql.query<{ organization_id: string }>(
      'select organization_id from documents',
    );
    const organizations = await ctx.sql.query<{ id: string }>('select id from organizations');
    return {
      documents: documents.rows.map((row) => row.organization_id),
      organizations: organizations.rows.map((row) => row.id),
    };
  },
);
const renameAll = demoCapability<Record<string, never>, { renamed: string[] }>(
  { id: 'tenancy.documents.rename_all', mutating: true },
  async (_input, ctx) => {
    const { rows } = await ctx.sql.query<{ organization_id: string }>(
      "update documents set file_name = 'renamed-by-a.txt' returning organization_id",
    );
    return { renamed: rows.map((row) => row.organization_id) };
  },
);
// Names another organization outright (a handler bug that takes tenancy from params): refused by the policy.
const plant = demoCapability<{ organization_id: string }, { planted: boolean }>(
  {
    id: 'tenancy.documents.plant',
    mutating: true,
    input_schema: {
      type: 'object',
      properties: { organization_id: { type: 'string' } },
      required: ['organization_id'],
      additionalProperties: false,
    },
  },
  async (input, ctx) => {
    await ctx.sql.query(
      `insert into documents (organization_id, installation_id, file_name, mime_type, size_bytes, sha256, content)
       values ($1, $2, 'planted.txt', 'text/plain', 0, $3, $4)`,
      [input.organization_id, ctx.installationId, '0'.repeat(64), new Uint8Array()],
    );
    return { planted: true };
  },
);
const gateway = useGateway({
  ...withCapabilities(vault, job, listAll, renameAll, plant),
  jobs: { pollIntervalMs: 50, retryDelayMs: 50 },
});
const validator = createValidator();

type Tenant = Awaited<ReturnType<typeof approvedInstallation>>;
let a: Tenant;
let b: Tenant;
/** What B created; A names each of these. */
const ofB = { documentId: '', uploadKey: '', approvalToken: '', approvalId: '', jobId: '', rotateKey: '' };
const upload = {
  file_name: 'b-secret.txt',
  mime_type: 'text/plain',
  content_base64: Buffer.from('B only').toString('base64'),
};

const invoke = (key: string, body: unknown) => gateway.client.post('/mcp/invoke', body, { key, idem: null });

/** Status, code and message of an error answer, with the id it names masked. */
function shape(answer: Answer, id: string) {
  expect(validator.validate('ErrorEnvelope', answer.json)).toEqual({ valid: true });
  const { code, message, retryable } = answer.json.error;
  return { status: answer.status, code, retryable, message: String(message).replaceAll(id, '<id>') };
}

beforeAll(async () => {
  a = await approvedInstallation(gateway, '100');
  b = await approvedInstallation(gateway, '100');
  ofB.uploadKey = `tenancy-${randomUUID()}`;
  const uploaded = await invoke(b.key, {
    id: 'documents.document.upload',
    params: upload,
    idempotency_key: ofB.uploadKey,
  });
  expect(uploaded.json.status).toBe('succeeded');
  ofB.documentId = uploaded.json.result.document.id;
  const pending = await invoke(b.key, { id: 'tenancy.vault.open', params: { door: 'b' } });
  expect(pending.json.status).toBe('pending_approval');
  ofB.approvalToken = pending.json.approval.approval_token;
  ofB.approvalId = pending.json.approval.approval_id;
  const accepted = await invoke(b.key, {
    id: 'tenancy.job.run',
    params: { label: 'b' },
    idempotency_key: `job-${randomUUID()}`,
  });
  expect(accepted.json.status).toBe('accepted');
  ofB.jobId = accepted.json.poll.job_id;
  ofB.rotateKey = `rotate-${randomUUID()}`;
  const rotated = await gateway.client.post('/keys/rotate', {}, { key: b.key, idem: ofB.rotateKey });
  expect(rotated.status).toBe(201);
  b.key = rotated.json.key.token;
});

describe("organization A naming organization B's ids", () => {
  it("GET /mcp/jobs/<B's job> answers exactly like a random job id", async () => {
    // B sees its own job (so the id is real and finished), A sees nothing.
    const own = await waitUntil(async () => {
      const answer = await gateway.client.get(`/mcp/jobs/${ofB.jobId}`, b.key);
      return answer.json?.status === 'succeeded' ? answer : undefined;
    });
    expect(own.json.result).toEqual({ label: 'b' });
    const random = randomUUID();
    const foreign = await gateway.client.get(`/mcp/jobs/${ofB.jobId}`, a.key);
    const missing = await gateway.client.get(`/mcp/jobs/${random}`, a.key);
    expect(foreign.status).toBe(404);
    expect(shape(foreign, ofB.jobId)).toEqual(shape(missing, random));
    expect(foreign.text).not.toContain('"b"');
  });

  it("invoke with B's approval token answers exactly like a made-up token, and runs nothing", async () => {
    await gateway.client.post(
      `/admin/approvals/${ofB.approvalId}/approve`,
      {},
      { key: gateway.operatorKey, idem: null },
    );
    const body = (approval_token: string) => ({
      id: 'tenancy.vault.open',
      params: { door: 'b' },
      approval_token,
    });
    const madeUp = `agw_ap_${randomUUID().replaceAll('-', '')}`;
    const foreign = await invoke(a.key, body(ofB.approvalToken));
    const missing = await invoke(a.key, body(madeUp));
    expect(foreign.json.status).not.toBe('succeeded');
    if (foreign.status === 200) {
      // A's own run waits for its own approval: never B's id, never B's result.
      expect(foreign.json.status).toBe('pending_approval');
      expect(foreign.json.approval.approval_id).not.toBe(ofB.approvalId);
      expect(missing.json.status).toBe('pending_approval');
    } else {
      expect(shape(foreign, ofB.approvalToken)).toEqual(shape(missing, madeUp));
    }
    // B's token still works for B: A's attempt consumed nothing of B's.
    const own = await invoke(b.key, body(ofB.approvalToken));
    expect(own.json).toMatchObject({ status: 'succeeded', result: { opened: 'b' } });
  });

  it("replaying B's invoke idempotency_key with A's key runs A's own upload, never returns B's body", async () => {
    const replay = await invoke(a.key, {
      id: 'documents.document.upload',
      params: upload,
      idempotency_key: ofB.uploadKey,
    });
    expect(replay.status).toBe(200);
    expect(replay.json.replayed).not.toBe(true);
    expect(replay.json.result.document.id).not.toBe(ofB.documentId);
    const rows = await gateway.knex('documents').where({ id: replay.json.result.document.id }).first();
    expect(rows.organization_id).toBe(a.organizationId);
  });

  it("replaying B's Idempotency-Key on /keys/rotate with A's key rotates A's key, never returns B's", async () => {
    const rotated = await gateway.client.post('/keys/rotate', {}, { key: a.key, idem: ofB.rotateKey });
    expect(rotated.status).toBe(201);
    expect(rotated.headers.get('idempotent-replayed')).toBeNull();
    expect(rotated.json.key.token).not.toBe(b.key);
    a.key = rotated.json.key.token;
    const current = await gateway.client.get('/org/current', a.key);
    expect(current.json.organization.id).toBe(a.organizationId);
  });

  it('an organization_id of B in a query or in params is never used for scoping', async () => {
    const current = await gateway.client.get(`/org/current?organization_id=${b.organizationId}`, a.key);
    expect(current.json.organization.id).toBe(a.organizationId);
    const withParam = await invoke(a.key, {
      id: 'core.org.current.get',
      params: { organization_id: b.organizationId },
    });
    expect(withParam.status).toBe(400);
    const budget = await invoke(a.key, {
      id: 'wallet.agent_budget.guard.check',
      params: { capability_id: 'core.org.current.get', estimated_cost_credits: 1 },
    });
    expect(budget.json.result.organization_id).toBe(a.organizationId);
    expect(budget.text).not.toContain(b.organizationId);
  });

  it("a handler whose SQL has no organization filter sees, changes and plants only A's rows", async () => {
    const uploaded = await invoke(a.key, {
      id: 'documents.document.upload',
      params: { ...upload, file_name: 'a.txt' },
      idempotency_key: `tenancy-${randomUUID()}`,
    });
    expect(uploaded.json.status).toBe('succeeded');
    const listed = await invoke(a.key, { id: 'tenancy.documents.list_all', params: {} });
    // A uploaded twice in this file (here and in the replay test above); B's upload is not among them.
    expect(listed.json.result.documents).toEqual([a.organizationId, a.organizationId]);
    expect(listed.json.result.organizations).toEqual([a.organizationId]);
    const renamed = await invoke(a.key, {
      id: 'tenancy.documents.rename_all',
      params: {},
      idempotency_key: `rename-${randomUUID()}`,
    });
    expect(renamed.json.result).toEqual({ renamed: [a.organizationId, a.organizationId] });
    const planted = await invoke(a.key, {
      id: 'tenancy.documents.plant',
      params: { organization_id: b.organizationId },
      idempotency_key: `plant-${randomUUID()}`,
    });
    expect(planted.status).toBe(500);
    expect(await gateway.knex('documents').where({ file_name: 'planted.txt' })).toEqual([]);
  });

  it("B's data is unchanged by all of A's attempts", async () => {
    const document = await gateway.knex('documents').where({ id: ofB.documentId }).first();
    expect(document.organization_id).toBe(b.organizationId);
    expect(document.file_name).toBe('b-secret.txt');
    const own = await gateway.client.get(`/mcp/jobs/${ofB.jobId}`, b.key);
    expect(own.json).toMatchObject({ status: 'succeeded', result: { label: 'b' } });
  });
});
