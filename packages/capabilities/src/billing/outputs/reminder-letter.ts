import type { CapabilityContext } from '../../define.js';
import { runStatement } from '../../sql.js';
import { addDays, notFound } from '../common.js';
import type { BillingDocumentRow } from '../records.js';
import { languageOf, type ReminderLevel, reminderTexts } from '../reminder-texts.js';
import { selectDocument } from '../sql.js';
import type { ReminderRow } from '../sql-payments.js';

/** Days between a reminder's date and the pay-by date it prints. */
export const PAY_BY_DAYS = 7;

/** The pay-by date a reminder of `reminderDate` prints. */
export function payByOf(reminderDate: string): string {
  return addDays(reminderDate, PAY_BY_DAYS);
}

/**
 * What a reminder PDF and its mail are made of: the reminder as created and the frozen invoice row it
 * reminds of (a letter needs no lines or payments).
 */
export interface ReminderLetter {
  readonly reminder: {
    readonly id: string;
    readonly level: ReminderLevel;
    readonly reminderDate: string;
    readonly payBy: string;
    readonly dueDate: string;
    readonly balance: string;
    readonly fee: string | null;
    readonly interest: string | null;
    readonly currency: string;
    readonly subject: string;
    readonly body: string;
    readonly createdAt: Date;
  };
  readonly invoice: { readonly document: BillingDocumentRow };
  readonly language: 'de' | 'en';
}

/**
 * The letter of a reminder of this organization: its invoice row as frozen at finalize (issuer, bank
 * account, locale), the language the issuer's locale names, the pay-by date. A reminder imported
 * without a subject or text gets the standard ones of its level.
 */
export async function reminderLetter(ctx: CapabilityContext, row: ReminderRow): Promise<ReminderLetter> {
  const document = (
    await runStatement<BillingDocumentRow>(ctx.sql, selectDocument, [ctx.organizationId, row.invoice_id])
  ).rows[0];
  if (document === undefined) notFound('invoice', row.invoice_id);
  const language = languageOf(document.issuer.locale);
  const facts = {
    level: row.reminder_level as ReminderLevel,
    number: document.number ?? '',
    documentDate: document.document_date,
    dueDate: row.due_date_at_reminder ?? document.due_date ?? document.document_date,
    balance: row.invoice_balance_at_reminder ?? document.balance,
    currency: row.currency,
    fee: row.fee_amount,
    interest: row.interest_amount,
  };
  const standard = reminderTexts(facts, language);
  return {
    reminder: {
      id: row.id,
      level: facts.level,
      reminderDate: row.reminder_date,
      payBy: payByOf(row.reminder_date),
      dueDate: facts.dueDate,
      balance: facts.balance,
      fee: facts.fee,
      interest: facts.interest,
      currency: facts.currency,
      subject: row.subject ?? standard.subject,
      body: row.body_snapshot ?? standard.body,
      createdAt: row.created_at,
    },
    invoice: { document },
    language,
  };
}
