import { createHash } from 'node:crypto';
import type { CapabilityContext } from '../../define.js';
import { runStatement, type SqlStatement } from '../../sql.js';
import { iso } from '../common.js';
import type { StoredBillingDocument } from '../records.js';
import type { OutputFormat, Rendering } from './rendering.js';
import { type ArchiveRow, insertArchived, selectArchived } from './sql.js';

/** The `archive` of an answer: where the answered bytes came from. */
export interface ArchiveEntry {
  readonly format: OutputFormat;
  readonly sha256: string;
  readonly size_bytes: number;
  readonly stored_at: string;
}

/** What every archive row holds: the stored bytes and where they came from. */
export interface StoredBytes {
  readonly filename: string;
  readonly content: Uint8Array;
  readonly sha256: string;
  readonly size_bytes: number;
  readonly stored_at: Date;
}

/** An archive table: its statements and the insert's values between the key and the time. */
export interface ArchiveStore {
  /** Reads the stored row by the key's values. */
  readonly select: SqlStatement;
  /** Stores `[...key, ...values(rendering, sha256), now]`, inserting nothing when the key is stored. */
  readonly insert: SqlStatement;
  readonly values: (rendering: Rendering, sha256: string) => readonly unknown[];
}

/**
 * The row `store` holds under `key`, rendering and storing it on first use. The first stored rendering
 * wins: a concurrent first call inserts nothing and answers the bytes the other stored. `rendered` is
 * false when the archive already held the bytes (an earlier run paid for them).
 */
export async function storedOnce<Row extends StoredBytes>(
  ctx: CapabilityContext,
  store: ArchiveStore,
  key: readonly unknown[],
  render: () => Promise<Rendering>,
): Promise<{ row: Row; rendered: boolean }> {
  const stored = (await runStatement<Row>(ctx.sql, store.select, key)).rows[0];
  if (stored !== undefined) return { row: stored, rendered: false };
  const rendering = await render();
  const sha256 = createHash('sha256').update(rendering.bytes).digest('hex');
  await runStatement(ctx.sql, store.insert, [...key, ...store.values(rendering, sha256), ctx.now]);
  const row = (await runStatement<Row>(ctx.sql, store.select, key)).rows[0] as Row;
  return { row, rendered: true };
}

/** billing_document_archive: one row per document and format. */
const documentArchive: ArchiveStore = {
  select: selectArchived,
  insert: insertArchived,
  values: (rendering, sha256) => [
    rendering.filename,
    rendering.mimeType,
    rendering.bytes,
    sha256,
    rendering.bytes.length,
    JSON.stringify(rendering.details),
  ],
};

/**
 * The archived rendering of an issued document in `format`, rendering and storing it on first use
 * ({@link storedOnce}); a draft is rendered every time and never archived (archive null).
 */
export async function archivedRendering(
  ctx: CapabilityContext,
  stored: StoredBillingDocument,
  format: OutputFormat,
  render: () => Promise<Rendering>,
): Promise<{ rendering: Rendering; archive: ArchiveEntry | null; rendered: boolean }> {
  const { document } = stored;
  if (document.status === 'draft') return { rendering: await render(), archive: null, rendered: true };
  const key = [ctx.organizationId, document.id, format];
  const { row, rendered } = await storedOnce<ArchiveRow>(ctx, documentArchive, key, render);
  return {
    rendered,
    rendering: {
      filename: row.filename,
      mimeType: row.mime_type,
      bytes: Buffer.from(row.content),
      details: row.details,
    },
    archive: {
      format,
      sha256: row.sha256,
      size_bytes: row.size_bytes,
      stored_at: iso(row.stored_at) as string,
    },
  };
}

/**
 * An output read is charged once per document and format: a run answered from the archive reports cost
 * 0, so only the run that rendered (or a draft's, rendered each time) pays the capability's price.
 */
export function chargeOnlyRenderings(ctx: CapabilityContext, rendered: boolean): void {
  if (!rendered) ctx.reportCost?.('0');
}
