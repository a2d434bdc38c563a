import { createHash, randomUUID } from 'node:crypto';
import { createValidator, MAX_UPLOAD_BASE64_LENGTH } from '@agw/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CapabilityContext,
  CapabilityError,
  type DocumentUploadInput,
  MAX_UPLOAD_BYTES,
  documentsDocumentUploadHandler as upload,
} from '../src/index.js';
import { createTestDatabase, recordingMail, type TestDatabase } from './helpers/pglite-sql.js';

const ORG = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const INSTALLATION = 'e1b0c1d2-3e4f-4a5b-8c6d-7e8f9a0b1c2d';
const NOW = new Date('2026-11-23T08:00:00Z');
const validator = createValidator();

// Minimal files with real signatures.
const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  Buffer.from('00000001000000010806000000', 'hex'),
  Buffer.from('1f15c489', 'hex'),
]);
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.seed(ORG, INSTALLATION);
});
afterAll(() => database.db.close());

/** A stored document row, content included. */
interface StoredRow {
  readonly organization_id: string;
  readonly installation_id: string;
  readonly file_name: string;
  readonly mime_type: string;
  readonly content: Uint8Array;
  readonly created_at: Date;
}

/** A context on the test database, and a way to read what this context's runs stored. */
function recordingContext(): { ctx: CapabilityContext; stored: () => Promise<StoredRow[]> } {
  const ids: string[] = [];
  const ctx: CapabilityContext = {
    organizationId: ORG,
    installationId: INSTALLATION,
    now: NOW,
    sql: database.sql,
    ids: {
      uuid() {
        const id = randomUUID();
        ids.push(id);
        return id;
      },
    },
    signal: new AbortController().signal,
    wallet: {
      getSnapshot: async () => {
        throw new Error('upload reads no wallet');
      },
    },
    fetch: async () => {
      throw new Error('upload reaches no network');
    },
    mail: recordingMail(),
  };
  const stored = async () =>
    (await database.db.query<StoredRow>('select * from documents where id = any($1::uuid[])', [ids])).rows;
  return { ctx, stored };
}

function params(mime_type: string, content: Buffer | string, file_name = 'file.bin'): DocumentUploadInput {
  return { file_name, mime_type, content_base64: Buffer.from(content).toString('base64') };
}

/** The refusal `handle` throws, after checking that `check` (dry_run) reports the same and nothing was stored. */
async function refusal(input: DocumentUploadInput): Promise<{ pointer: string; message: string }> {
  const { ctx, stored } = recordingContext();
  const thrown = await upload.handle(input, ctx).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(CapabilityError);
  const error = thrown as CapabilityError;
  expect(error.code).toBe('validation_failed');
  expect(await stored()).toEqual([]);
  expect(await upload.check?.(input)).toEqual(error.violations);
  const [violation] = error.violations;
  return { pointer: violation?.schema_pointer ?? '', message: error.message };
}

async function accepted(input: DocumentUploadInput): Promise<boolean> {
  const { ctx, stored } = recordingContext();
  await upload.handle(input, ctx);
  expect(await upload.check?.(input)).toEqual([]);
  return (await stored()).length === 1;
}

describe('documents.document.upload: storing', () => {
  it('stores the decoded bytes with their SHA-256 in the caller organization and answers the output schema', async () => {
    const { ctx, stored } = recordingContext();
    const result = await upload.handle(params('image/png', PNG, 'pixel.png'), ctx);
    const rows = await stored();
    expect(rows).toHaveLength(1);
    const [record] = rows;
    expect(Buffer.from(record?.content ?? []).equals(PNG)).toBe(true);
    expect(record).toMatchObject({
      organization_id: ORG,
      installation_id: INSTALLATION,
      file_name: 'pixel.png',
      mime_type: 'image/png',
      created_at: NOW,
    });
    const sha256 = createHash('sha256').update(PNG).digest('hex');
    expect(result).toEqual({
      document: {
        id: expect.any(String),
        file_name: 'pixel.png',
        mime_type: 'image/png',
        size_bytes: PNG.length,
        sha256,
        created_at: NOW.toISOString(),
      },
    });
    expect(validator.validate(upload.contract.output_schema, result).valid).toBe(true);
  });
});

describe('documents: the table keeps sha256 to 64 lower-case hex digits', () => {
  const insert = (sha256: string) =>
    database.sql.query(
      `insert into documents (organization_id, installation_id, file_name, mime_type, size_bytes, sha256, content)
       values ($1, $2, 'a.txt', 'text/plain', 1, $3, '\\x61'::bytea)`,
      [ORG, INSTALLATION, sha256],
    );
  const digest = createHash('sha256').update('a').digest('hex');

  it('accepts a digest and refuses upper case, a non-hex letter, 63 and 65 digits', async () => {
    await expect(insert(digest)).resolves.toBeDefined();
    for (const bad of [digest.toUpperCase(), `${digest.slice(0, 63)}g`, digest.slice(1), `${digest}0`]) {
      await expect(insert(bad)).rejects.toThrow(/documents_sha256_check/);
    }
  });
});

describe('documents.document.upload: declared type against the content', () => {
  it('accepts content whose signature is the declared type (aliases included)', async () => {
    expect(await accepted(params('image/jpeg', JPEG))).toBe(true);
    expect(await accepted(params('image/jpg', JPEG))).toBe(true);
    expect(await accepted(params('application/pdf', PDF))).toBe(true);
  });

  it('refuses a recognised signature of another type, naming both types, at /params/mime_type', async () => {
    const answer = await refusal(params('image/png', JPEG));
    expect(answer.pointer).toBe('/params/mime_type');
    expect(answer.message).toContain('image/png');
    expect(answer.message).toContain('image/jpeg');
  });

  it('refuses a type file-type can recognise when the content has no signature at all', async () => {
    const answer = await refusal(params('application/pdf', 'just some words'));
    expect(answer.pointer).toBe('/params/mime_type');
    expect(answer.message).toMatch(/no application\/pdf signature/);
  });

  it('accepts anything as application/octet-stream', async () => {
    expect(await accepted(params('application/octet-stream', PNG))).toBe(true);
    expect(await accepted(params('application/octet-stream', Buffer.from([0, 1, 2, 255])))).toBe(true);
  });

  it('accepts an unrecognisable binary type unless the content is a known other type', async () => {
    expect(await accepted(params('application/x-acme-model', Buffer.from([0, 7, 255, 1])))).toBe(true);
    const answer = await refusal(params('application/x-acme-model', PNG));
    expect(answer.message).toContain('image/png');
  });
});

describe('documents.document.upload: text types', () => {
  it('accepts UTF-8 text for text/*, JSON, CSV, XML and +xml types', async () => {
    expect(await accepted(params('text/plain', 'Grüße, 1 € — ✓\n'))).toBe(true);
    expect(await accepted(params('text/csv', 'id,amount\n1,12.50\n'))).toBe(true);
    expect(await accepted(params('application/json', '{"a":[1,2,3]}'))).toBe(true);
    expect(await accepted(params('application/xml', '<invoice><id>1</id></invoice>'))).toBe(true);
    expect(await accepted(params('text/xml', '<?xml version="1.0"?><a/>'))).toBe(true);
    const svg = '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>';
    expect(await accepted(params('image/svg+xml', svg))).toBe(true);
    // Any text format is text/plain.
    expect(await accepted(params('text/plain', '<?xml version="1.0"?><a/>'))).toBe(true);
  });

  it('refuses invalid UTF-8 and NUL bytes for a text type', async () => {
    const latin1 = await refusal(params('text/csv', Buffer.from('name\nJos\xe9\n', 'latin1')));
    expect(latin1).toMatchObject({
      pointer: '/params/mime_type',
      message: expect.stringMatching(/not valid UTF-8/),
    });
    const nul = await refusal(params('application/json', Buffer.from('{"a":1}\u0000')));
    expect(nul.message).toMatch(/NUL/);
    const utf16 = await refusal(params('text/plain', Buffer.from('hello', 'utf16le')));
    expect(utf16.pointer).toBe('/params/mime_type');
  });

  it('refuses a binary signature declared as text, naming both types', async () => {
    const answer = await refusal(params('text/plain', PDF));
    expect(answer.message).toContain('text/plain');
    expect(answer.message).toContain('application/pdf');
    expect((await refusal(params('text/csv', '<?xml version="1.0"?><a/>'))).message).toContain(
      'application/xml',
    );
  });
});

describe('documents.document.upload: base64', () => {
  it.each([
    ['a length that is not a multiple of 4', 'aGVsbG8'],
    ['whitespace', 'aGVs bG8='],
    ['a line break', 'aGVs\nbG8='],
    ['the URL-safe alphabet', 'a-_s'],
    ['non-zero padding bits', 'aGVsbG9='],
    ['padding in the middle', 'aA==aGVs'],
    ['padding alone', '===='],
  ])('refuses %s at /params/content_base64', async (_label, text) => {
    const answer = await refusal({ file_name: 'a.txt', mime_type: 'text/plain', content_base64: text });
    expect(answer.pointer).toBe('/params/content_base64');
    expect(answer.message).toMatch(/canonical base64|multiple of 4/);
  });

  it('accepts canonical base64 with one and two padding characters', async () => {
    expect(await accepted(params('text/plain', 'hello'))).toBe(true);
    expect(await accepted(params('text/plain', 'hell'))).toBe(true);
  });
});

describe('documents.document.upload: size', () => {
  it('accepts exactly 10 MiB of decoded content and refuses one byte more', async () => {
    expect(MAX_UPLOAD_BYTES).toBe(10 * 1024 * 1024);
    expect(await accepted(params('application/octet-stream', Buffer.alloc(MAX_UPLOAD_BYTES, 7)))).toBe(true);
    const over = await refusal(params('application/octet-stream', Buffer.alloc(MAX_UPLOAD_BYTES + 1, 7)));
    expect(over.pointer).toBe('/params/content_base64');
    expect(over.message).toMatch(/10485761 bytes; the limit is 10485760/);
  });

  it('refuses the longest text the schema allows when, unpadded, it decodes past the limit', async () => {
    const text = 'A'.repeat(MAX_UPLOAD_BASE64_LENGTH);
    const schema = upload.contract.input_schema;
    const input = { file_name: 'big.bin', mime_type: 'application/octet-stream', content_base64: text };
    expect(validator.validate(schema, input).valid).toBe(true);
    expect((await refusal(input)).pointer).toBe('/params/content_base64');
  });
});
