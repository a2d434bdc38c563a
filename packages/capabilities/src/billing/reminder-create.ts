import { defineCapabilityHandler, preflightOf } from '../define.js';
import { runStatement, type Sql } from '../sql.js';
import { addDays, billingContract, conflict, notFound, utcDate } from './common.js';
import { requireMinorUnits } from './money.js';
import type { BillingDocumentRow } from './records.js';
import { OPEN_STATUSES } from './records.js';
import { reminderRecord } from './reminder-list.js';
import { languageOf, REMINDER_LEVELS, reminderTexts } from './reminder-texts.js';
import { selectDocument, selectDocumentForUpdate } from './sql.js';
import { countReminders, insertReminder, type ReminderRow, selectReminder } from './sql-payments.js';

export interface ReminderCreateInput {
  invoice_id: string;
  reminder_date?: string;
  fee_amount?: number;
  interest_amount?: number;
  subject?: string | null;
  body?: string | null;
}

/**
 * The rules a reminder of `input` must meet on `invoice` (undefined: none such), which had reminders up
 * to level index `last` (-1: none), on `today`: an open invoice, overdue on the reminder date, not past
 * its final notice, fee and interest in the currency's digits. Throws the refusal `handle` answers.
 */
function reminderRules(
  input: ReminderCreateInput,
  invoice: BillingDocumentRow | undefined,
  last: number,
  today: string,
) {
  if (invoice === undefined || invoice.document_type !== 'invoice') notFound('invoice', input.invoice_id);
  if (!OPEN_STATUSES.includes(invoice.status)) {
    conflict(
      `Invoice ${invoice.number ?? invoice.id} is ${invoice.status}; only an open, overdue invoice is reminded.`,
    );
  }
  const reminderDate = input.reminder_date ?? today;
  const dueDate = invoice.due_date ?? invoice.document_date;
  if (!(dueDate < reminderDate)) {
    conflict(
      `Invoice ${invoice.number} is not overdue on ${reminderDate}: it is due ${dueDate}.`,
      `Only an overdue invoice is reminded: from ${addDays(dueDate, 1)} on.`,
    );
  }
  const levelIndex = last + 1;
  const level = REMINDER_LEVELS[levelIndex];
  if (level === undefined) conflict(`Invoice ${invoice.number} already had its final notice.`);
  const fee =
    input.fee_amount === undefined
      ? null
      : requireMinorUnits(input.fee_amount, invoice.currency, '/params/fee_amount');
  const interest =
    input.interest_amount === undefined
      ? null
      : requireMinorUnits(input.interest_amount, invoice.currency, '/params/interest_amount');
  return { invoice, reminderDate, dueDate, levelIndex, level, fee, interest };
}

/** The level index of `invoiceId`'s last reminder (-1: none). */
async function lastLevel(sql: Sql, org: string, invoiceId: string): Promise<number> {
  return (await runStatement<{ last: number }>(sql, countReminders, [org, invoiceId])).rows[0]?.last ?? -1;
}

/**
 * `billing.reminder.create`: the next reminder level for an issued invoice that is open and overdue on
 * the reminder date (due date before it; an invoice without one is due on its date). Fee and interest
 * are stated on the reminder; the frozen invoice is not changed. Refused for drafts, paid or void
 * invoices, invoices not yet due and after the final notice. Its texts are in the issuer's language
 * (German for a `de` profile). Created as `draft`: sending is the caller's job. Its preflight runs the
 * same rules and previews the level and dates the reminder would get.
 */
export const billingReminderCreateHandler = defineCapabilityHandler<ReminderCreateInput, unknown>({
  contract: billingContract('billing.reminder.create'),
  async preflight(input, ctx) {
    const org = ctx.organizationId;
    const found = (await runStatement<BillingDocumentRow>(ctx.sql, selectDocument, [org, input.invoice_id]))
      .rows[0];
    const last = found === undefined ? -1 : await lastLevel(ctx.sql, org, found.id);
    return preflightOf(async () => {
      const { level, reminderDate, dueDate } = reminderRules(input, found, last, utcDate(ctx.now));
      return { reminder_level: level, reminder_date: reminderDate, due_date_at_reminder: dueDate };
    }, '/params/invoice_id');
  },
  async handle(input, ctx) {
    const org = ctx.organizationId;
    const locked = (
      await runStatement<BillingDocumentRow>(ctx.sql, selectDocumentForUpdate, [org, input.invoice_id])
    ).rows[0];
    // Read under the invoice's lock, so two reminders cannot take the same level.
    const last = locked === undefined ? -1 : await lastLevel(ctx.sql, org, locked.id);
    const { invoice, reminderDate, dueDate, levelIndex, level, fee, interest } = reminderRules(
      input,
      locked,
      last,
      utcDate(ctx.now),
    );
    const texts = reminderTexts(
      {
        level,
        number: invoice.number as string,
        documentDate: invoice.document_date,
        dueDate,
        balance: invoice.balance,
        currency: invoice.currency,
        fee: fee?.toFixed() ?? null,
        interest: interest?.toFixed() ?? null,
      },
      languageOf(invoice.issuer.locale),
    );
    const subject = input.subject ?? texts.subject;
    const body = input.body ?? texts.body;
    const id = ctx.ids.uuid();
    await runStatement(ctx.sql, insertReminder, [
      id,
      org,
      invoice.id,
      invoice.account_id,
      level,
      levelIndex,
      reminderDate,
      invoice.currency,
      dueDate,
      invoice.balance,
      fee?.toFixed() ?? null,
      interest?.toFixed() ?? null,
      subject,
      body,
      ctx.now,
    ]);
    const row = (await runStatement<ReminderRow>(ctx.sql, selectReminder, [org, id])).rows[0] as ReminderRow;
    return { reminder: reminderRecord(row) };
  },
});
