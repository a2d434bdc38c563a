import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, page, paging, paymentRecord } from './common.js';
import type { BillingPaymentRow } from './records.js';
import { listPayments } from './sql-payments.js';

/** `billing.payment.list`: payments, newest first, optionally of one document or one status. */
export const billingPaymentListHandler = defineCapabilityHandler<
  { document_id?: string; status?: string; limit?: number; offset?: number },
  unknown
>({
  contract: billingContract('billing.payment.list'),
  async handle(input, ctx) {
    const { limit, offset } = paging(input);
    const { rows } = await runStatement<BillingPaymentRow>(ctx.sql, listPayments, [
      ctx.organizationId,
      input.document_id ?? null,
      input.status ?? null,
      limit,
      offset,
    ]);
    return page(rows.map(paymentRecord), limit, offset);
  },
});
