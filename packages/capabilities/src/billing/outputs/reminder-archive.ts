import { createHash } from 'node:crypto';
import type { CapabilityContext } from '../../define.js';
import { runStatement } from '../../sql.js';
import { iso } from '../common.js';
import { insertReminderArchive, type ReminderArchiveRow, selectReminderArchive } from '../sql-reminders.js';
import type { ReminderLetter } from './reminder-letter.js';
import { renderReminderInPool } from './render-pool.js';

/**
 * The stored PDF of a reminder, rendered from `letterOf()` and stored on first use (a reminder is
 * frozen when created, so its letter never changes): every later read and every send answers the same
 * bytes, and only a first use builds the letter. The first stored rendering wins, as for a document's
 * archive. `rendered` is false when the bytes were stored before (an earlier run paid for them).
 */
export async function archivedReminderPdf(
  ctx: CapabilityContext,
  reminderId: string,
  letterOf: () => Promise<ReminderLetter>,
) {
  const key = [ctx.organizationId, reminderId];
  let row = (await runStatement<ReminderArchiveRow>(ctx.sql, selectReminderArchive, key)).rows[0];
  const rendered = row === undefined;
  if (row === undefined) {
    const rendering = await renderReminderInPool(await letterOf());
    await runStatement(ctx.sql, insertReminderArchive, [
      ...key,
      rendering.filename,
      rendering.bytes,
      createHash('sha256').update(rendering.bytes).digest('hex'),
      rendering.bytes.length,
      ctx.now,
    ]);
    row = (await runStatement<ReminderArchiveRow>(ctx.sql, selectReminderArchive, key))
      .rows[0] as ReminderArchiveRow;
  }
  return {
    rendered,
    filename: row.filename,
    bytes: Buffer.from(row.content),
    archive: { sha256: row.sha256, size_bytes: row.size_bytes, stored_at: iso(row.stored_at) as string },
  };
}
