import { defineCapabilityHandler, preflightOf } from '../define.js';
import { runStatement, type Sql } from '../sql.js';
import { MAX_DOCUMENT_PAYMENTS } from './bounds.js';
import {
  billingContract,
  conflict,
  invalid,
  iso,
  notFound,
  PAYABLE_TYPES,
  paymentRecord,
  utcDate,
} from './common.js';
import { type Money, minorUnits, money, requireMinorUnits, toNumber } from './money.js';
import type { BillingDocumentRow, BillingPaymentRow } from './records.js';
import { OPEN_STATUSES } from './records.js';
import { selectDocument, selectDocumentForUpdate, updateDocumentMoney } from './sql.js';
import { countPaymentsOfDocument, insertPayment, markRemindersPaid } from './sql-payments.js';

export interface PaymentRecordInput {
  document_id: string;
  amount: number;
  payment_date?: string;
  payment_method?: string;
  reference?: string | null;
  notes?: string | null;
}

/**
 * The rules a payment of `input` on `document` (undefined: none such) must meet, which already holds
 * `payments` payments; throws the refusal `handle` answers, returns the amount and the open balance.
 */
function paymentRules(
  input: PaymentRecordInput,
  document: BillingDocumentRow | undefined,
  payments: number,
): { document: BillingDocumentRow; amount: Money; balance: Money } {
  if (document === undefined) notFound('document', input.document_id);
  if (!PAYABLE_TYPES.includes(document.document_type)) {
    conflict(`A ${document.document_type} takes no payments; record them on its invoice.`);
  }
  if (document.status === 'draft')
    conflict(
      `Document ${document.id} is a draft; finalize it before recording payments.`,
      'Run billing.document.finalize on it first.',
    );
  if (!OPEN_STATUSES.includes(document.status)) {
    conflict(`Invoice ${document.number} is ${document.status} and takes no payments.`);
  }
  const amount = requireMinorUnits(input.amount, document.currency, '/params/amount');
  const balance = money(document.balance);
  if (amount.greaterThan(balance)) {
    const open = `${balance.toFixed(minorUnits(document.currency))} ${document.currency}`;
    invalid(
      '/params/amount',
      `exceeds the open balance of ${open} on invoice ${document.number}`,
      `Record at most ${open}, the open balance; refund any overpayment outside the gateway.`,
    );
  }
  if (payments >= MAX_DOCUMENT_PAYMENTS) {
    conflict(
      `Invoice ${document.number} already holds ${MAX_DOCUMENT_PAYMENTS} payments, the most a document keeps; record the rest as one payment.`,
    );
  }
  return { document, amount, balance };
}

/** The payments `documentId` holds (0 for a document that does not exist). */
async function paymentCount(sql: Sql, org: string, documentId: string): Promise<number> {
  const { rows } = await runStatement<{ count: number }>(sql, countPaymentsOfDocument, [org, documentId]);
  return rows[0]?.count ?? 0;
}

/**
 * `billing.payment.record`: a payment against an issued invoice. The document row is locked first, so
 * concurrent payments on one invoice apply one after the other and none is lost. open → partially_paid
 * → paid (`paid_at` set when the balance reaches 0). An amount above the balance is refused naming the
 * balance (no credit is kept: record the balance, refund the rest outside); a draft, void, cancelled
 * or paid document takes no payment, and neither does one that holds as many payments as its read lists.
 * Its preflight runs the same rules on the unlocked row.
 */
export const billingPaymentRecordHandler = defineCapabilityHandler<PaymentRecordInput, unknown>({
  contract: billingContract('billing.payment.record'),
  async preflight(input, ctx) {
    const org = ctx.organizationId;
    const document = (
      await runStatement<BillingDocumentRow>(ctx.sql, selectDocument, [org, input.document_id])
    ).rows[0];
    const payments = await paymentCount(ctx.sql, org, input.document_id);
    return preflightOf(async () => {
      paymentRules(input, document, payments);
      return undefined;
    }, '/params/document_id');
  },
  async handle(input, ctx) {
    const org = ctx.organizationId;
    const locked = (
      await runStatement<BillingDocumentRow>(ctx.sql, selectDocumentForUpdate, [org, input.document_id])
    ).rows[0];
    // Counted under the document's lock, so concurrent payments cannot pass the bound together.
    const counted = locked === undefined ? 0 : await paymentCount(ctx.sql, org, locked.id);
    const { document, amount, balance } = paymentRules(input, locked, counted);
    const nextBalance = balance.minus(amount);
    const paidTotal = money(document.paid_total).plus(amount);
    const paid = nextBalance.isZero();
    const paidAt = paid ? ctx.now : null;
    const payment = (
      await runStatement<BillingPaymentRow>(ctx.sql, insertPayment, [
        ctx.ids.uuid(),
        org,
        document.id,
        document.account_id,
        amount.toFixed(),
        document.currency,
        input.payment_date ?? utcDate(ctx.now),
        input.payment_method ?? null,
        input.reference ?? null,
        input.notes ?? null,
        ctx.now,
      ])
    ).rows[0] as BillingPaymentRow;
    const updated = (
      await runStatement<BillingDocumentRow>(ctx.sql, updateDocumentMoney, [
        org,
        document.id,
        paid ? 'paid' : 'partially_paid',
        paid ? 'paid' : 'partial',
        paidTotal.toFixed(),
        document.credited_total,
        nextBalance.toFixed(),
        paidAt,
        ctx.now,
      ])
    ).rows[0] as BillingDocumentRow;
    if (paid) await runStatement(ctx.sql, markRemindersPaid, [org, document.id]);
    return {
      payment: paymentRecord(payment),
      document: {
        id: updated.id,
        status: updated.status,
        payment_status: updated.payment_status,
        balance: toNumber(updated.balance),
        paid_at: iso(updated.paid_at),
      },
      paid_total: toNumber(paidTotal),
      next_balance: toNumber(nextBalance),
    };
  },
});
