import type { CapabilityContext } from '../../define.js';
import { addDays, notFound } from '../common.js';
import { readDocument } from '../read-document.js';
import type { StoredBillingDocument } from '../records.js';
import { languageOf, type ReminderLevel, reminderTexts } from '../reminder-texts.js';
import type { ReminderRow } from '../sql-payments.js';

/** Days between a reminder's date and the pay-by date it prints. */
export const PAY_BY_DAYS = 7;

/** What a reminder PDF is made of: the reminder as created and the frozen invoice it reminds of. */
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
    readonly body: string;
    readonly createdAt: Date;
  };
  readonly invoice: StoredBillingDocument;
  readonly language: 'de' | 'en';
}

/**
 * The letter of a reminder of this organization: its invoice read as frozen at finalize (issuer, bank
 * account, locale), the language the issuer's locale names, the pay-by date. A reminder imported
 * without a text gets the standard one of its level.
 */
export async function reminderLetter(ctx: CapabilityContext, row: ReminderRow): Promise<ReminderLetter> {
  const stored = await readDocument(ctx.sql, ctx.organizationId, row.invoice_id);
  if (stored === undefined) notFound('invoice', row.invoice_id);
  const language = languageOf(stored.document.issuer.locale);
  const facts = {
    level: row.reminder_level as ReminderLevel,
    number: stored.document.number ?? '',
    documentDate: stored.document.document_date,
    dueDate: row.due_date_at_reminder ?? stored.document.due_date ?? stored.document.document_date,
    balance: row.invoice_balance_at_reminder ?? stored.document.balance,
    currency: row.currency,
    fee: row.fee_amount,
    interest: row.interest_amount,
  };
  return {
    reminder: {
      id: row.id,
      level: facts.level,
      reminderDate: row.reminder_date,
      payBy: addDays(row.reminder_date, PAY_BY_DAYS),
      dueDate: facts.dueDate,
      balance: facts.balance,
      fee: facts.fee,
      interest: facts.interest,
      currency: facts.currency,
      body: row.body_snapshot ?? reminderTexts(facts, language).body,
      createdAt: row.created_at,
    },
    invoice: stored,
    language,
  };
}
