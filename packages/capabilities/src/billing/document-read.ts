import { defineCapabilityHandler } from '../define.js';
import { billingContract, documentRecord, lineRecord, notFound, paymentRecord } from './common.js';
import { deliveriesOf } from './outputs/delivery.js';
import { readDocument } from './read-document.js';

/**
 * `billing.document.read`: one document with its lines, payments and the mails that sent it; another
 * organization's is missing.
 */
export const billingDocumentReadHandler = defineCapabilityHandler<{ document_id: string }, unknown>({
  contract: billingContract('billing.document.read'),
  async handle(input, ctx) {
    const stored = await readDocument(ctx.sql, ctx.organizationId, input.document_id);
    if (stored === undefined) notFound('document', input.document_id);
    return {
      document: documentRecord(stored.document),
      lines: stored.lines.map(lineRecord),
      payments: stored.payments.map(paymentRecord),
      deliveries: await deliveriesOf(ctx.sql, ctx.organizationId, input.document_id),
    };
  },
});
