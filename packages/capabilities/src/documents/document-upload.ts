import { createHash } from 'node:crypto';
import { findCapabilityContract } from '@agw/contracts';
import {
  CapabilityError,
  type CapabilityViolation,
  type DocumentRecord,
  defineCapabilityHandler,
} from '../define.js';
import { runStatement } from '../sql.js';
import { type InsertedDocumentRow, insertDocument } from './sql.js';
import { checkMimeType, decodeCanonicalBase64, loadFileType } from './upload-content.js';

const contract = findCapabilityContract('documents.document.upload', '1.0.0');
if (!contract) throw new Error('contracts package lacks documents.document.upload');

/** Params of `documents.document.upload`. */
export interface DocumentUploadInput {
  readonly file_name: string;
  readonly mime_type: string;
  readonly content_base64: string;
}

/** The result: the stored document without its content. */
export interface DocumentUploadResult {
  readonly document: DocumentRecord;
}

type Inspected =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly violations: readonly CapabilityViolation[] };

/** Decodes the content and checks it against the declared type; shared by `check` (dry_run) and `handle`. */
async function inspect(input: DocumentUploadInput): Promise<Inspected> {
  const decoded = decodeCanonicalBase64(input.content_base64);
  if (!decoded.ok) return { ok: false, violations: [decoded.violation] };
  const violation = await checkMimeType(input.mime_type, decoded.bytes, await loadFileType());
  return violation ? { ok: false, violations: [violation] } : { ok: true, bytes: decoded.bytes };
}

/**
 * `documents.document.upload`: stores base64 content (at most 10 MiB decoded) in the caller's
 * organization after checking that it is canonical base64 and that it is what `mime_type` says
 * (see `checkMimeType`). The answer carries the id, size and SHA-256, never the content.
 */
export const documentsDocumentUploadHandler = defineCapabilityHandler<
  DocumentUploadInput,
  DocumentUploadResult
>({
  contract,
  async check(input) {
    const inspected = await inspect(input);
    return inspected.ok ? [] : inspected.violations;
  },
  async handle(input, ctx) {
    const inspected = await inspect(input);
    if (!inspected.ok) {
      const [first] = inspected.violations;
      throw new CapabilityError('validation_failed', first?.message ?? 'The content was refused.', [
        ...inspected.violations,
      ]);
    }
    const { bytes } = inspected;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const { rows } = await runStatement<InsertedDocumentRow>(ctx.sql, insertDocument, [
      ctx.ids.uuid(),
      ctx.organizationId,
      ctx.installationId,
      input.file_name,
      input.mime_type,
      bytes.byteLength,
      sha256,
      bytes,
      ctx.now,
    ]);
    const [row] = rows as [InsertedDocumentRow];
    const document: DocumentRecord = {
      id: row.id,
      file_name: input.file_name,
      mime_type: input.mime_type,
      size_bytes: bytes.byteLength,
      sha256,
      created_at: row.created_at.toISOString(),
    };
    return { document };
  },
});
