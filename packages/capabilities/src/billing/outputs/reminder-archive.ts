import type { CapabilityContext } from '../../define.js';
import { iso } from '../common.js';
import { insertReminderArchive, type ReminderArchiveRow, selectReminderArchive } from '../sql-reminders.js';
import { type ArchiveStore, storedOnce } from './archive.js';
import type { ReminderLetter } from './reminder-letter.js';
import { renderReminderInPool } from './render-pool.js';

/** billing_reminder_archive: one PDF per reminder. */
const reminderArchive: ArchiveStore = {
  select: selectReminderArchive,
  insert: insertReminderArchive,
  values: (rendering, sha256) => [rendering.filename, rendering.bytes, sha256, rendering.bytes.length],
};

/**
 * The stored PDF of a reminder, rendered from `letterOf()` and stored on first use (a reminder is
 * frozen when created, so its letter never changes): every later read and every send answers the same
 * bytes, and only a first use builds the letter. The first stored rendering wins, as for a document's
 * archive ({@link storedOnce}). `rendered` is false when the bytes were stored before (an earlier run
 * paid for them).
 */
export async function archivedReminderPdf(
  ctx: CapabilityContext,
  reminderId: string,
  letterOf: () => Promise<ReminderLetter>,
) {
  const { row, rendered } = await storedOnce<ReminderArchiveRow>(
    ctx,
    reminderArchive,
    [ctx.organizationId, reminderId],
    async () => renderReminderInPool(await letterOf()),
  );
  return {
    rendered,
    filename: row.filename,
    bytes: Buffer.from(row.content),
    archive: { sha256: row.sha256, size_bytes: row.size_bytes, stored_at: iso(row.stored_at) as string },
  };
}
