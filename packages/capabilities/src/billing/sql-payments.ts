import type { SqlStatement } from '../sql.js';
import { PAYMENT_COLUMNS } from './sql.js';

/**
 * One payment. $1 id, $2 organization, $3 document, $4 account, $5 amount, $6 currency, $7 date,
 * $8 method, $9 reference, $10 notes, $11 now.
 */
export const insertPayment: SqlStatement = {
  name: 'billing.payment.insert',
  text: `insert into billing_payments (id, organization_id, document_id, account_id, status, amount, currency,
  payment_date, payment_method, reference, notes, created_at)
values ($1, $2, $3, $4, 'completed', $5, $6, $7, $8, $9, $10, $11)
returning ${PAYMENT_COLUMNS}`,
};

/** How many payments a document has. $1 organization, $2 document. */
export const countPaymentsOfDocument: SqlStatement = {
  name: 'billing.payment.count_of_document',
  text: 'select count(*)::int as count from billing_payments where organization_id = $1 and document_id = $2',
};

/** $1 organization, $2 document or null, $3 status or null, $4 limit, $5 offset. Newest first. */
export const listPayments: SqlStatement = {
  name: 'billing.payment.list',
  text: `select ${PAYMENT_COLUMNS} from billing_payments
where organization_id = $1 and ($2::uuid is null or document_id = $2) and ($3::text is null or status = $3)
order by created_at desc, id desc limit $4 offset $5`,
};

/** Reminders of a paid invoice are marked paid_after_reminder. $1 organization, $2 invoice. */
export const markRemindersPaid: SqlStatement = {
  name: 'billing.reminder.mark_paid',
  text: `update billing_reminders set status = 'paid_after_reminder'
where organization_id = $1 and invoice_id = $2 and status in ('draft', 'scheduled', 'sent')`,
};

export const REMINDER_COLUMNS = `r.id, r.invoice_id, r.account_id, r.reminder_level, r.status,
  to_char(r.reminder_date, 'YYYY-MM-DD') as reminder_date, r.currency, r.sent_channel, r.sent_at, r.subject,
  r.created_at, to_char(r.due_date_at_reminder, 'YYYY-MM-DD') as due_date_at_reminder,
  r.invoice_balance_at_reminder::text as invoice_balance_at_reminder, r.fee_amount::text as fee_amount,
  r.interest_amount::text as interest_amount, r.body_snapshot, d.number as invoice_number,
  d.total::text as invoice_total, d.balance::text as invoice_balance, d.status as invoice_status,
  d.counterparty_name, d.issuer ->> 'locale' as invoice_locale`;

export interface ReminderRow {
  readonly id: string;
  readonly invoice_id: string;
  readonly account_id: string | null;
  readonly reminder_level: string;
  readonly status: string;
  readonly reminder_date: string;
  readonly currency: string;
  readonly sent_channel: string | null;
  readonly sent_at: Date | null;
  readonly subject: string | null;
  readonly created_at: Date;
  readonly due_date_at_reminder: string | null;
  readonly invoice_balance_at_reminder: string | null;
  readonly fee_amount: string | null;
  readonly interest_amount: string | null;
  readonly body_snapshot: string | null;
  readonly invoice_number: string | null;
  readonly invoice_total: string;
  readonly invoice_balance: string;
  readonly invoice_status: string;
  readonly counterparty_name: string | null;
  /** The reminded invoice's issuer locale, which names the reminder's language. */
  readonly invoice_locale: string | null;
}

/** Reminders of an invoice that count toward the next level. $1 organization, $2 invoice. */
export const countReminders: SqlStatement = {
  name: 'billing.reminder.count_live',
  text: `select coalesce(max(level_index), -1)::int as last from billing_reminders
where organization_id = $1 and invoice_id = $2 and status <> 'cancelled'`,
};

/**
 * $1 id, $2 organization, $3 invoice, $4 account, $5 level, $6 level index, $7 date, $8 currency,
 * $9 due date, $10 balance, $11 fee, $12 interest, $13 subject, $14 body, $15 now.
 */
export const insertReminder: SqlStatement = {
  name: 'billing.reminder.insert',
  text: `insert into billing_reminders (id, organization_id, invoice_id, account_id, reminder_level, level_index,
  status, reminder_date, currency, due_date_at_reminder, invoice_balance_at_reminder, fee_amount,
  interest_amount, subject, body_snapshot, created_at)
values ($1, $2, $3, $4, $5, $6, 'draft', $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
};

/** $1 organization, $2 reminder id. */
export const selectReminder: SqlStatement = {
  name: 'billing.reminder.select',
  text: `select ${REMINDER_COLUMNS} from billing_reminders r join billing_documents d on d.id = r.invoice_id
where r.organization_id = $1 and r.id = $2`,
};

/** $1 organization, $2 invoice, $3 account, $4 status, $5 level (each may be null), $6 limit, $7 offset. */
export const listReminders: SqlStatement = {
  name: 'billing.reminder.list',
  text: `select ${REMINDER_COLUMNS} from billing_reminders r join billing_documents d on d.id = r.invoice_id
where r.organization_id = $1 and d.organization_id = $1
  and ($2::uuid is null or r.invoice_id = $2) and ($3::uuid is null or r.account_id = $3)
  and ($4::text is null or r.status = $4) and ($5::text is null or r.reminder_level = $5)
order by r.created_at desc, r.id desc limit $6 offset $7`,
};
