import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, notFound } from './common.js';
import { chargeOnlyRenderings } from './outputs/archive.js';
import { archivedReminderPdf } from './outputs/reminder-archive.js';
import { payByOf, reminderLetter } from './outputs/reminder-letter.js';
import { languageOf } from './reminder-texts.js';
import { type ReminderRow, selectReminder } from './sql-payments.js';

/**
 * `billing.reminder.pdf`: a reminder as a PDF letter in its issuer's language. Rendered and stored on
 * the first read, which alone is charged; later reads (and billing.reminder.send) answer those bytes.
 */
export const billingReminderPdfHandler = defineCapabilityHandler<{ reminder_id: string }, unknown>({
  contract: billingContract('billing.reminder.pdf'),
  async handle(input, ctx) {
    const row = (
      await runStatement<ReminderRow>(ctx.sql, selectReminder, [ctx.organizationId, input.reminder_id])
    ).rows[0];
    if (row === undefined) notFound('reminder', input.reminder_id);
    const pdf = await archivedReminderPdf(ctx, row.id, () => reminderLetter(ctx, row));
    chargeOnlyRenderings(ctx, pdf.rendered);
    return {
      filename: pdf.filename,
      mime_type: 'application/pdf',
      size_bytes: pdf.bytes.length,
      pdf_base64: pdf.bytes.toString('base64'),
      language: languageOf(row.invoice_locale),
      pay_by: payByOf(row.reminder_date),
      archive: pdf.archive,
    };
  },
});
