import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, iso, page, paging } from './common.js';
import { toNumber } from './money.js';
import { listReminders, type ReminderRow } from './sql-payments.js';

const amount = (value: string | null) => (value === null ? null : toNumber(value));

/** The contracts' reminder record, with a summary of its invoice. */
export function reminderRecord(row: ReminderRow) {
  return {
    id: row.id,
    invoice_id: row.invoice_id,
    account_id: row.account_id,
    reminder_level: row.reminder_level,
    status: row.status,
    reminder_date: row.reminder_date,
    currency: row.currency,
    sent_channel: row.sent_channel,
    sent_at: iso(row.sent_at),
    subject: row.subject,
    created_at: iso(row.created_at) as string,
    due_date_at_reminder: row.due_date_at_reminder,
    invoice_balance_at_reminder: amount(row.invoice_balance_at_reminder),
    fee_amount: amount(row.fee_amount),
    interest_amount: amount(row.interest_amount),
    body_snapshot: row.body_snapshot,
    invoice: {
      number: row.invoice_number,
      status: row.invoice_status,
      total: toNumber(row.invoice_total),
      balance: toNumber(row.invoice_balance),
      counterparty_name: row.counterparty_name,
    },
  };
}

/** `billing.reminder.list`: reminders, newest first, by invoice, account, status or level. */
export const billingReminderListHandler = defineCapabilityHandler<
  {
    invoice_id?: string;
    account_id?: string;
    status?: string;
    reminder_level?: string;
    limit?: number;
    offset?: number;
  },
  unknown
>({
  contract: billingContract('billing.reminder.list'),
  async handle(input, ctx) {
    const { limit, offset } = paging(input);
    const { rows } = await runStatement<ReminderRow>(ctx.sql, listReminders, [
      ctx.organizationId,
      input.invoice_id ?? null,
      input.account_id ?? null,
      input.status ?? null,
      input.reminder_level ?? null,
      limit,
      offset,
    ]);
    return page(rows.map(reminderRecord), limit, offset);
  },
});
