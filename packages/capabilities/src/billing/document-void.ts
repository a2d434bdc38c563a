import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, conflict, notFound } from './common.js';
import { money } from './money.js';
import type { BillingDocumentRow } from './records.js';
import { selectDocumentForUpdate, voidDocument } from './sql.js';

/**
 * `billing.document.void` (risk `high`: every void waits for an operator's approval). A draft becomes
 * `void`; an issued document only while no payment and no credit note touched it — it keeps its number,
 * so the sequence stays gap-free. A document with payments or credits is corrected by a credit note.
 */
export const billingDocumentVoidHandler = defineCapabilityHandler<
  { document_id: string; reason?: string | null },
  unknown
>({
  contract: billingContract('billing.document.void'),
  async handle(input, ctx) {
    const org = ctx.organizationId;
    const document = (
      await runStatement<BillingDocumentRow>(ctx.sql, selectDocumentForUpdate, [org, input.document_id])
    ).rows[0];
    if (document === undefined) notFound('document', input.document_id);
    if (document.status === 'void') conflict(`Document ${document.id} is already void.`);
    if (!money(document.paid_total).isZero() || !money(document.credited_total).isZero()) {
      conflict(
        `Document ${document.number ?? document.id} has payments or credit notes; correct it with a credit note instead.`,
      );
    }
    if (document.status === 'closed') {
      conflict(`Credit note ${document.number} is settled against its invoice and cannot be voided.`);
    }
    await runStatement(ctx.sql, voidDocument, [org, document.id, 'not_applicable', ctx.now]);
    return {
      document_id: document.id,
      previous_status: document.status,
      status: 'void',
      number: document.number,
      document_type: document.document_type,
    };
  },
});
