// documents.document.upload over real HTTP on the default catalog: an approved installation stores a
// document (row, bytes and SHA-256 checked in the database), a replay stores and charges once, refused
// content answers 400 with the pointer and stores nothing, dry_run checks the same and writes nothing,
// a key without documents:write is 403, and the body limit of invoke fits the upload maximum while
// other routes keep BODY_LIMIT_BYTES.

import { createHash, randomBytes } from 'node:crypto';
import { MAX_UPLOAD_BASE64_LENGTH } from '@agw/contracts';
import { issueKey, readWalletSnapshot } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Answer, onboard } from './helpers/access-client.js';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';

const gateway = useGateway();
// A 1×1 PNG header (signature + IHDR) and a minimal JPEG: enough for file-type to recognise them.
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');

let key: string;
let organizationId: string;
let installationId: string;
let keyCounter = 0;

beforeAll(async () => {
  const flow = await onboard(gateway.client);
  await gateway
    .knex('installations')
    .where({ id: flow.installationId })
    .update({ owner_verified_at: gateway.knex.fn.now(), operator_approval_status: 'approved' });
  key = flow.installationKey;
  installationId = flow.installationId;
  organizationId = (await gateway.knex('installations').where({ id: installationId }).first())
    .organization_id;
  await gateway.knex('wallets').insert({ organization_id: organizationId, balance: '1' });
});

function upload(mime_type: string, content: Buffer, file_name = 'file.bin') {
  keyCounter += 1;
  return {
    id: 'documents.document.upload',
    params: { file_name, mime_type, content_base64: content.toString('base64') },
    idempotency_key: `upload-test-${Date.now()}-${keyCounter}`,
  };
}

async function call(
  path: '/mcp/invoke' | '/mcp/dry_run',
  body: ReturnType<typeof upload>,
  as = key,
): Promise<Answer> {
  // A dry run takes no idempotency_key (it changes nothing).
  const { idempotency_key, ...simulated } = body;
  const sent = path === '/mcp/invoke' ? body : simulated;
  const answer = await gateway.client.post(path, sent, { idem: null, key: as });
  const schema = path === '/mcp/invoke' ? 'InvokeResponse' : 'DryRunResponse';
  expectSchema(answer.status === 200 ? schema : 'ErrorEnvelope', answer.json);
  return answer;
}

const documentCount = async () =>
  Number(
    (await gateway.knex('documents').where({ organization_id: organizationId }).count({ n: '*' }))[0]?.n,
  );
const balance = async () =>
  Number((await readWalletSnapshot(gateway.knex, organizationId, new Date())).balance_credits).toFixed(2);

describe('documents.document.upload', () => {
  it('stores the content in the organization and answers id, size, SHA-256; a replay stores and charges once', async () => {
    const before = await balance();
    const body = upload('image/png', PNG, 'pixel.png');
    const first = await call('/mcp/invoke', body);
    expect(first.status).toBe(200);
    const sha256 = createHash('sha256').update(PNG).digest('hex');
    expect(first.json).toMatchObject({
      status: 'succeeded',
      capability_id: 'documents.document.upload',
      cost: { credits: '0.02' },
      result: {
        document: { file_name: 'pixel.png', mime_type: 'image/png', size_bytes: PNG.length, sha256 },
      },
    });
    const { document } = first.json.result;
    const row = await gateway.knex('documents').where({ id: document.id }).first();
    expect(row).toMatchObject({
      organization_id: organizationId,
      installation_id: installationId,
      file_name: 'pixel.png',
      mime_type: 'image/png',
      size_bytes: PNG.length,
      sha256,
    });
    expect(Buffer.from(row.content).equals(PNG)).toBe(true);
    expect(new Date(row.created_at).toISOString()).toBe(document.created_at);
    expect(await balance()).toBe((Number(before) - 0.02).toFixed(2));

    const replay = await call('/mcp/invoke', body);
    expect(replay.status).toBe(200);
    expect(replay.json).toEqual({ ...first.json, replayed: true });
    expect(await gateway.knex('documents').where({ sha256, organization_id: organizationId })).toHaveLength(
      1,
    );
    const charges = await gateway.knex('wallet_ledger').where({
      organization_id: organizationId,
      capability_id: 'documents.document.upload',
      kind: 'charge',
    });
    expect(charges).toHaveLength(1);
    expect(await balance()).toBe((Number(before) - 0.02).toFixed(2));
  });

  it('refuses content that is not the declared type with 400 at /params/mime_type, storing and charging nothing', async () => {
    const [documents, before] = [await documentCount(), await balance()];
    const answer = await call('/mcp/invoke', upload('image/png', JPEG, 'photo.png'));
    expect(answer.status).toBe(400);
    const error = expectEnvelope(answer.json, 'validation_failed');
    expect(error.schema_pointer).toBe('/params/mime_type');
    expect(error.message).toMatch(/image\/png.*image\/jpeg/);
    expect(error.details).toEqual([expect.objectContaining({ schema_pointer: '/params/mime_type' })]);

    const text = await call('/mcp/invoke', upload('text/csv', Buffer.from([0x61, 0xff, 0x0a])));
    expect(expectEnvelope(text.json, 'validation_failed').schema_pointer).toBe('/params/mime_type');
    expect(await documentCount()).toBe(documents);
    expect(await balance()).toBe(before);
  });

  it('refuses base64 that is not canonical with 400 at /params/content_base64', async () => {
    const body = upload('text/plain', Buffer.from('hello'));
    body.params.content_base64 = 'aGVsbG9='; // non-zero pad bits: Node would decode it to "hello"
    const answer = await call('/mcp/invoke', body);
    expect(answer.status).toBe(400);
    expect(expectEnvelope(answer.json, 'validation_failed').schema_pointer).toBe('/params/content_base64');
  });

  it('dry_run runs the same checks and writes nothing', async () => {
    const [documents, before] = [await documentCount(), await balance()];
    const valid = await call('/mcp/dry_run', upload('text/plain', Buffer.from('a note\n')));
    expect(valid.status).toBe(200);
    expect(valid.json).toMatchObject({
      valid: true,
      violations: [],
      estimated_cost: { amount_max: 0.02 },
      effects: [{ kind: 'state_change', capability_id: 'documents.document.upload' }],
    });
    const mismatch = await call('/mcp/dry_run', upload('application/pdf', PNG));
    expect(mismatch.status).toBe(200);
    expect(mismatch.json.valid).toBe(false);
    expect(mismatch.json.violations).toEqual([
      expect.objectContaining({
        schema_pointer: '/params/mime_type',
        message: expect.stringMatching(/image\/png/),
      }),
    ]);
    expect(await documentCount()).toBe(documents);
    expect(await balance()).toBe(before);
  });

  it('403 scope_missing for a key without documents:write', async () => {
    const narrow = await gateway.knex.transaction(
      async (trx) =>
        (
          await issueKey(trx, {
            kind: 'installation',
            scopes: ['core:read', 'documents:read'],
            ttlSeconds: 3600,
            installationId,
            organizationId,
          })
        ).token,
    );
    const documents = await documentCount();
    const answer = await call('/mcp/invoke', upload('text/plain', Buffer.from('x')), narrow);
    expect(answer.status).toBe(403);
    expectEnvelope(answer.json, 'scope_missing');
    expect(await documentCount()).toBe(documents);
  });
});

describe('body limits', () => {
  it('invoke accepts an upload larger than BODY_LIMIT_BYTES (1 MiB); describe keeps the 1 MiB limit', async () => {
    const content = randomBytes(1536 * 1024);
    const answer = await call('/mcp/invoke', upload('application/octet-stream', content, 'blob.bin'));
    expect(answer.status).toBe(200);
    expect(answer.json.result.document).toMatchObject({
      size_bytes: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
    });
    const describe = await gateway.client.post(
      '/mcp/describe',
      { id: 'documents.document.upload', pad: 'x'.repeat(1024 * 1024) },
      { idem: null },
    );
    expect(describe.status).toBe(413);
    expectEnvelope(describe.json, 'payload_too_large');
  });

  it('a body over the upload maximum plus BODY_LIMIT_BYTES is 413 before it is parsed', async () => {
    const body = upload('application/octet-stream', Buffer.alloc(0));
    body.params.content_base64 = 'A'.repeat(MAX_UPLOAD_BASE64_LENGTH + 1024 * 1024);
    const answer = await gateway.client.post('/mcp/invoke', body, { idem: null, key });
    expect(answer.status).toBe(413);
    expectEnvelope(answer.json, 'payload_too_large');
  });
});
