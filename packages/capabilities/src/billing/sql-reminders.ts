import type { SqlStatement } from '../sql.js';
import { REMINDER_COLUMNS } from './sql-payments.js';

/** A reminder with what sending needs beside its record: the last recipient and the sends so far. */
export const selectReminderToSend: SqlStatement = {
  name: 'billing.reminder.select_to_send',
  text: `select ${REMINDER_COLUMNS}, r.sent_to, r.send_count from billing_reminders r
join billing_documents d on d.id = r.invoice_id
where r.organization_id = $1 and r.id = $2 for update of r`,
};

/**
 * A send: status sent (kept when paid since), channel, time, recipient, one more send; answers the
 * reminder as sent. $1 org, $2 id, $3 to, $4 now.
 */
export const markReminderSent: SqlStatement = {
  name: 'billing.reminder.mark_sent',
  text: `update billing_reminders r set status = 'sent', sent_channel = 'email', sent_at = $4, sent_to = $3,
  send_count = r.send_count + 1
from billing_documents d
where d.id = r.invoice_id and r.organization_id = $1 and r.id = $2
returning ${REMINDER_COLUMNS}`,
};

export interface ReminderArchiveRow {
  readonly filename: string;
  readonly content: Uint8Array;
  readonly sha256: string;
  readonly size_bytes: number;
  readonly stored_at: Date;
}

/** $1 organization, $2 reminder. */
export const selectReminderArchive: SqlStatement = {
  name: 'billing.reminder_archive.select',
  text: `select filename, content, sha256, size_bytes, stored_at from billing_reminder_archive
where organization_id = $1 and reminder_id = $2`,
};

/**
 * The first rendering wins: a concurrent second one inserts nothing and reads the first back.
 * $1 organization, $2 reminder, $3 filename, $4 content, $5 sha256, $6 size, $7 now.
 */
export const insertReminderArchive: SqlStatement = {
  name: 'billing.reminder_archive.insert',
  text: `insert into billing_reminder_archive (organization_id, reminder_id, filename, content, sha256, size_bytes,
  stored_at)
values ($1, $2, $3, $4, $5, $6, $7)
on conflict (organization_id, reminder_id) do nothing`,
};
