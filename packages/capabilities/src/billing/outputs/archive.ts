import { createHash } from 'node:crypto';
import type { CapabilityContext } from '../../define.js';
import { runStatement } from '../../sql.js';
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

/**
 * The archived rendering of an issued document in `format`, rendering and storing it on first use;
 * a draft is rendered every time and never archived (archive null). The first stored rendering wins:
 * a concurrent first call inserts nothing and answers the bytes the other stored. `rendered` is false
 * when the archive already held the bytes (an earlier run paid for them).
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
  let row = (await runStatement<ArchiveRow>(ctx.sql, selectArchived, key)).rows[0];
  const rendered = row === undefined;
  if (row === undefined) {
    const rendering = await render();
    await runStatement(ctx.sql, insertArchived, [
      ...key,
      rendering.filename,
      rendering.mimeType,
      rendering.bytes,
      createHash('sha256').update(rendering.bytes).digest('hex'),
      rendering.bytes.length,
      JSON.stringify(rendering.details),
      ctx.now,
    ]);
    row = (await runStatement<ArchiveRow>(ctx.sql, selectArchived, key)).rows[0] as ArchiveRow;
  }
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
