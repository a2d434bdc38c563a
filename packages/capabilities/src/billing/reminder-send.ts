import { MAX_REMINDER_SENDS } from '@agw/contracts';
import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, conflict, invalid, iso, notFound } from './common.js';
import { archivedReminderPdf } from './outputs/reminder-archive.js';
import { reminderLetter } from './outputs/reminder-letter.js';
import { OPEN_STATUSES } from './records.js';
import { reminderRecord } from './reminder-list.js';
import { reminderMail } from './reminder-texts.js';
import type { ReminderRow } from './sql-payments.js';
import { markReminderSent, selectReminderToSend } from './sql-reminders.js';

interface ReminderSendInput {
  readonly reminder_id: string;
  readonly to?: string;
}

type SendableRow = ReminderRow & { readonly sent_to: string | null; readonly send_count: number };

/**
 * `billing.reminder.send`: mails a reminder to the reminded invoice's customer (or `to`) with its stored
 * PDF, subject and text in the issuer's language; the mail is staged in the invoke's transaction and
 * leaves after it commits. The reminder becomes `sent` with the time and recipient. Sending again
 * (another key) mails it again, as billing.document.send does — to a corrected address, say — up to
 * MAX_REMINDER_SENDS times; a reminder whose invoice is settled, void or that was cancelled is refused.
 */
export const billingReminderSendHandler = defineCapabilityHandler<ReminderSendInput, unknown>({
  contract: billingContract('billing.reminder.send'),
  async handle(input, ctx) {
    const org = ctx.organizationId;
    const row = (await runStatement<SendableRow>(ctx.sql, selectReminderToSend, [org, input.reminder_id]))
      .rows[0];
    if (row === undefined) notFound('reminder', input.reminder_id);
    if (row.status === 'cancelled') conflict(`Reminder ${row.id} was cancelled and is not sent.`);
    if (row.status === 'paid_after_reminder' || !OPEN_STATUSES.includes(row.invoice_status)) {
      conflict(
        `Invoice ${row.invoice_number ?? row.invoice_id} is ${row.invoice_status}; a reminder is sent only while it is open.`,
      );
    }
    if (row.send_count >= MAX_REMINDER_SENDS) {
      conflict(
        `Reminder ${row.id} was sent ${MAX_REMINDER_SENDS} times, the most a reminder is; send its PDF (billing.reminder.pdf) another way, or create the next level.`,
      );
    }
    const letter = await reminderLetter(ctx, row);
    const { document } = letter.invoice;
    const to = input.to ?? document.counterparty_email;
    if (!to) invalid('/params/to', "is required: the reminded invoice's customer has no email");

    const pdf = await archivedReminderPdf(ctx, row.id, async () => letter);
    const { subject, text } = reminderMail(
      { subject: letter.reminder.subject, body: letter.reminder.body },
      document.issuer.issuer_name ?? '',
      letter.language,
    );
    await ctx.mail.stage({
      to,
      subject,
      text,
      attachments: [{ filename: pdf.filename, contentType: 'application/pdf', content: pdf.bytes }],
    });
    const sent = (await runStatement<ReminderRow>(ctx.sql, markReminderSent, [org, row.id, to, ctx.now]))
      .rows[0] as ReminderRow;
    return {
      reminder: reminderRecord(sent),
      delivery: {
        channel: 'email',
        to,
        subject,
        attachment: {
          filename: pdf.filename,
          mime_type: 'application/pdf',
          size_bytes: pdf.bytes.length,
          sha256: pdf.archive.sha256,
        },
        send_count: row.send_count + 1,
        sent_at: iso(ctx.now) as string,
      },
      previously_sent_at: iso(row.sent_at),
    };
  },
});
